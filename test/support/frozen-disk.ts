import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A small ext4 file system of a test's own, on a loop device, mounted at `mountPoint`: `freeze()` is
 * `fsfreeze --freeze`, after which every write into it waits in the kernel, uninterruptibly, until `thaw()`,
 * as on a hung network mount or a suspended disk. Needs root (the tests run as root here). Disposing it
 * thaws and unmounts it, however the test ended, so no process stays stuck on it, and removes its image.
 */
export class FrozenDisk implements AsyncDisposable {
  private frozen = false;

  private constructor(
    readonly mountPoint: string,
    private readonly image: string,
  ) {}

  /** Makes the file system in `image` (a new file of `mib` MiB) and mounts it at `mountPoint`. */
  static async mount(mountPoint: string, image: string, mib = 128): Promise<FrozenDisk> {
    await run('truncate', ['-s', `${mib}M`, image]);
    await run('mkfs.ext4', ['-q', '-F', image]);
    await mkdir(mountPoint, { recursive: true });
    await run('mount', ['-o', 'loop', image, mountPoint]);
    return new FrozenDisk(mountPoint, image);
  }

  async freeze(): Promise<void> {
    await run('fsfreeze', ['--freeze', this.mountPoint]);
    this.frozen = true;
  }

  async thaw(): Promise<void> {
    if (!this.frozen) return;
    await run('fsfreeze', ['--unfreeze', this.mountPoint]);
    this.frozen = false;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.thaw().catch(() => undefined);
    // Lazily: a process that wrote into it (a copy let go by the thaw) may still hold a file open.
    await run('umount', ['--lazy', this.mountPoint]).catch(() => undefined);
    // The loop device keeps the image's data until the lazy unmount ends; its name goes now.
    await rm(this.image, { force: true });
  }
}
