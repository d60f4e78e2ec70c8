import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Locator, type Page, type Response } from 'playwright-core';
import type { Decision } from '../../workflows/contracts';

/**
 * Drives the Temporal Web UI in Debian's headless chromium, the way an operator does: a workflow's User
 * Metadata tab, its "Send an Update" modal, and the workflow list with a visibility query. Proven on the UI
 * `temporal server start-dev` serves (2.54) and on the lab's ui-server (2.53, its own namespace). Every step
 * that fails names itself and leaves a full-page screenshot behind.
 */

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
];
const POLL_MS = 500;
/** How long a loaded page's modal may take to show the workflow's Updates before the page is loaded again. */
const NAMES_SHOW_WITHIN_MS = 20_000;
/** How long a workflow page is loaded again until it learned the workflow's Updates. */
const UPDATE_NAMES_FOR_MS = 180_000;

/** The Update modal offers no registered names: the page's query for them was not answered. */
class NamesNotOffered extends Error {
  override readonly name = 'NamesNotOffered';
}

/** How long the UI's error page is loaded again before a step fails with it. */
const ERROR_PAGE_FOR_MS = 120_000;
/** How long one load of a page may stay blank before it is loaded again (seen blank for 180 s at load 16). */
const BLANK_FOR_MS = 60_000;
/** How long a page is loaded again while it stays blank, before the step fails saying what the page logged. */
const PAGE_SHOWS_WITHIN_MS = 240_000;
/** The last browser errors kept (console errors, failed requests): a blank page's step says them. */
const ERRORS_KEPT = 8;

/** Thrown by TemporalWebUi.launch before anything starts when there is no browser to drive. */
export class ChromiumMissingError extends Error {
  constructor(readonly executablePath: string) {
    super(
      `Chromium is not installed at ${executablePath}: run scripts/bootstrap.sh, which installs Debian's chromium package.`,
    );
    this.name = 'ChromiumMissingError';
  }
}

/** Thrown by every TemporalWebUi step that fails: which step, why, and where its screenshot is. */
export class WebUiStepError extends Error {
  constructor(
    readonly step: string,
    readonly screenshotPath: string | undefined,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    const screenshot = screenshotPath
      ? ` (screenshot: ${screenshotPath})`
      : ' (no screenshot: the page was gone)';
    super(`Web UI step "${step}" failed: ${reason}${screenshot}`, { cause });
    this.name = 'WebUiStepError';
  }
}

/**
 * The ui-server refused the page's own API requests for want of its CSRF token: the browser did not keep the
 * ui-server's `_csrf` cookie, so the page could not echo it back. Chromium drops a `Secure` cookie set over
 * plain HTTP anywhere but loopback (127.0.0.1, localhost keep it); the page then shows no current details
 * and every Query, Signal and Update it sends is refused, while reads of the history still work.
 */
export class CsrfRefusedError extends Error {
  constructor(readonly refused: string[]) {
    super(
      `the ui-server refused ${refused.length} of the page's requests for want of its CSRF cookie (${refused[0] ?? ''}): ` +
        'serve the UI over HTTPS, on loopback, or with cors.cookieInsecure (TEMPORAL_CSRF_COOKIE_INSECURE=true)',
    );
    this.name = 'CsrfRefusedError';
  }
}

export interface WebUiOptions {
  /** Where the UI answers, e.g. TEMPORAL_UI_URL from the test harness. */
  baseUrl: string;
  namespace?: string;
  /** Where a failing step saves its screenshot. */
  failureScreenshotDir: string;
  executablePath?: string;
  /** How long one click or one element may take to appear. */
  actionTimeoutMs?: number;
}

/** What the workflow page's User Metadata tab shows, as rendered text (markdown already rendered). */
export interface WorkflowMetadataText {
  /** The header badge, e.g. `RUNNING`, `COMPLETED`. */
  status: string;
  /** From `staticSummary` at start; empty when none was set. */
  summary: string;
  /** From `staticDetails` at start; empty when none was set. */
  details: string;
  /** From the workflow's latest `setCurrentDetails`; empty when it never set any. */
  currentDetails: string;
}

/** What the "Send an Update" modal said after Submit. */
export type UpdateFromUiOutcome =
  | { succeeded: true }
  /** `message` is the validator's rejection or the handler's failure; `trace` the stack the modal shows under a handler failure. */
  | { succeeded: false; message: string; trace: string | undefined };

export class TemporalWebUi {
  /** `METHOD path: message` of each request the ui-server refused for its CSRF token, in order. */
  private readonly csrfRefused: string[] = [];
  private readonly responsesRead = new Set<Promise<void>>();
  /** How many refusals there were when the running step began. */
  private refusedBeforeStep = 0;

  private constructor(
    private readonly browser: Browser,
    readonly page: Page,
    private readonly options: Required<Omit<WebUiOptions, 'executablePath'>>,
  ) {
    page.on('response', (response) => this.noteCsrfRefusal(response));
    page.on('console', (message) => {
      if (message.type() === 'error') this.noteBrowserError(`console: ${message.text()}`);
    });
    page.on('requestfailed', (request) =>
      this.noteBrowserError(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`),
    );
  }

  private readonly browserErrors: string[] = [];

  private noteBrowserError(error: string): void {
    this.browserErrors.push(error.slice(0, 300));
    if (this.browserErrors.length > ERRORS_KEPT) this.browserErrors.shift();
  }

  static async launch(options: WebUiOptions): Promise<TemporalWebUi> {
    const executablePath = options.executablePath ?? DEBIAN_CHROMIUM;
    if (!existsSync(executablePath)) throw new ChromiumMissingError(executablePath);
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const settled = {
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        namespace: options.namespace ?? 'default',
        failureScreenshotDir: options.failureScreenshotDir,
        actionTimeoutMs: options.actionTimeoutMs ?? 60_000,
      };
      page.setDefaultTimeout(settled.actionTimeoutMs);
      page.setDefaultNavigationTimeout(settled.actionTimeoutMs);
      return new TemporalWebUi(browser, page, settled);
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
  }

  /** Opens the workflow's latest run on its User Metadata tab and reads the summary, details and current details. */
  async openWorkflow(workflowId: string): Promise<WorkflowMetadataText> {
    return this.step(`open workflow ${workflowId}`, async () => {
      await this.openUserMetadata(workflowId);
      return this.readMetadata();
    });
  }

  /**
   * Waits until the workflow's current details contain `text`. The UI fetches current details once per page
   * load (the header status polls by itself, the details do not), so each attempt reloads the page.
   */
  async waitForCurrentDetails(
    workflowId: string,
    text: string,
    timeoutMs = 120_000,
  ): Promise<WorkflowMetadataText> {
    return this.step(`wait for "${text}" in the current details of ${workflowId}`, async () => {
      await this.openUserMetadata(workflowId);
      return this.pollWithReload(
        timeoutMs,
        () => this.readMetadata(),
        (seen) => seen.currentDetails.includes(text),
      );
    });
  }

  /** Waits until the header badge shows `status` (case-insensitive, e.g. `Completed`). */
  async waitForStatus(
    workflowId: string,
    status: string,
    timeoutMs = 120_000,
  ): Promise<WorkflowMetadataText> {
    return this.step(`wait for status ${status} of ${workflowId}`, async () => {
      await this.openUserMetadata(workflowId);
      return this.pollWithReload(
        timeoutMs,
        () => this.readMetadata(),
        (seen) => seen.status.toLowerCase() === status.toLowerCase(),
      );
    });
  }

  /**
   * Sends an Update through the workflow page's More Actions → Send an Update modal: the name is picked from
   * the names the workflow registered (or typed as Custom), `input` is pasted as
   * JSON. Resolves with what the modal reported; a refused or failed Update is an outcome, not an error.
   * A name the workflow did not register fails the step unless `allowUnregistered` is set. `screenshotTo`
   * saves the page as the modal left it (the error on it, or the success toast) before it is closed.
   */
  async sendUpdate(
    workflowId: string,
    updateName: string,
    input: unknown,
    { allowUnregistered = false, screenshotTo }: { allowUnregistered?: boolean; screenshotTo?: string } = {},
  ): Promise<UpdateFromUiOutcome> {
    return this.step(`send Update ${updateName} to ${workflowId}`, async () => {
      const modal = await this.updateModalNaming(workflowId, updateName, allowUnregistered);
      await modal.getByRole('textbox', { name: 'Data' }).click();
      await this.page.keyboard.press('ControlOrMeta+A');
      await this.page.keyboard.insertText(JSON.stringify(input));
      // Submitted with Enter from the form: in this UI (2.54, headless chromium) a click on Submit right after
      // typing into the JSON editor was often lost on the runbook's busy page, with no request sent.
      await modal.getByTestId('update-id').click();
      const sent = this.page.waitForRequest(
        (request) => request.method() === 'POST' && request.url().includes('/update/'),
        { timeout: this.options.actionTimeoutMs },
      );
      await this.page.keyboard.press('Enter');
      await sent;
      const outcome = await this.modalOutcome(modal);
      if (screenshotTo) await this.screenshot(screenshotTo);
      if (!outcome.succeeded) await modal.getByRole('button', { name: 'Cancel' }).first().click();
      return outcome;
    });
  }

  /**
   * Opens the workflow list filtered by a visibility query and returns the workflow id of each row shown
   * (first page, newest first; a workflow id appears once per run). Visibility lags behind the workflows a
   * little, so with `until` the list is reloaded until the ids satisfy it.
   */
  async listWorkflowIds(
    query: string,
    until: (ids: string[]) => boolean = () => true,
    timeoutMs = 120_000,
  ): Promise<string[]> {
    return this.step(`list workflows where ${query}`, async () => {
      await this.open(
        `${this.namespaceUrl()}/workflows?query=${encodeURIComponent(query)}`,
        this.listSettled(),
      );
      return this.pollWithReload(timeoutMs, () => this.readListedIds(), until, this.listSettled());
    });
  }

  /** Saves a full-page screenshot (directories created as needed) and returns its path. */
  async screenshot(path: string): Promise<string> {
    await mkdir(dirname(path), { recursive: true });
    await this.page.screenshot({ path, fullPage: true });
    return path;
  }

  private namespaceUrl(): string {
    return `${this.options.baseUrl}/namespaces/${encodeURIComponent(this.options.namespace)}`;
  }

  /**
   * Loads `url` until `ready` shows. The UI's own error page ("Uh oh. There's an error.": a transient 500,
   * seen on the list, and on a closed run's page when the machine is loaded and its query is slow) is
   * loaded again until the step's time is up, then the step fails with its text. A load that stays blank
   * (the single-page app never rendered) is loaded again too, as a person would, until PAGE_SHOWS_WITHIN_MS.
   */
  private async open(url: string, ready: Locator): Promise<void> {
    const errorPage = this.page.getByText("Uh oh. There's an error.");
    const deadline = Date.now() + ERROR_PAGE_FOR_MS;
    const shownBy = Date.now() + PAGE_SHOWS_WITHIN_MS;
    for (let attempt = 1; ; attempt++) {
      await this.page.goto(url, { waitUntil: 'domcontentloaded' });
      const shown = await ready
        .or(errorPage)
        .first()
        .waitFor({ timeout: BLANK_FOR_MS })
        .then(
          () => true,
          (error: unknown) => {
            if (Date.now() < shownBy) return false;
            throw new Error(
              `${url} stayed blank after ${attempt} loads; the browser's last errors: ${this.browserErrors.join(' | ') || 'none'}`,
              { cause: error },
            );
          },
        );
      if (!shown) continue;
      if (!(await errorPage.isVisible())) return;
      if (Date.now() > deadline) {
        const shown = normaliseText(await this.page.locator('body').innerText()).replace(/\n/g, ' ');
        throw new Error(`the UI answered ${url} with its error page ${attempt} times: ${shown}`);
      }
      await this.page.waitForTimeout(POLL_MS * attempt);
    }
  }

  /** `/workflows/<id>` redirects to the latest run's timeline; acting before the redirect loses the click. */
  private async openWorkflowRun(workflowId: string): Promise<void> {
    const id = encodeURIComponent(workflowId);
    await this.open(
      `${this.namespaceUrl()}/workflows/${id}`,
      this.page.getByRole('tab', { name: 'User Metadata' }),
    );
    await this.page.waitForURL((url) => url.pathname.includes(`/workflows/${id}/`));
  }

  private async openUserMetadata(workflowId: string): Promise<void> {
    await this.openWorkflowRun(workflowId);
    await this.page.getByRole('tab', { name: 'User Metadata' }).click();
    await this.page.waitForURL((url) => url.pathname.endsWith('/user-metadata'));
    await this.metadataSettled().waitFor();
  }

  private metadataSettled(): Locator {
    return this.page.getByRole('heading', { name: 'Current Details' });
  }

  private listSettled(): Locator {
    const rows = this.page.getByTestId('workflows-summary-configurable-table-row');
    return rows.first().or(this.page.getByRole('heading', { name: 'No Workflows Found' }));
  }

  private async readMetadata(): Promise<WorkflowMetadataText> {
    const status = await this.page.getByTestId('execution-status').first().innerText();
    return {
      status: status.trim(),
      summary: await this.renderedMarkdown('#user-metadata-summary'),
      details: await this.renderedMarkdown('#user-metadata-details'),
      currentDetails: await this.renderedMarkdown('#user-metadata-current-details'),
    };
  }

  /**
   * The UI renders each markdown field in its own iframe whose `src` carries the markdown; a field that was
   * never set has no iframe or an empty `content`, a set one is read once its document has rendered.
   */
  private async renderedMarkdown(iframeSelector: string): Promise<string> {
    const iframe = this.page.locator(iframeSelector);
    if ((await iframe.count()) === 0) return '';
    const src = (await iframe.getAttribute('src')) ?? '';
    if (!new URL(src, this.options.baseUrl).searchParams.get('content')) return '';
    const body = this.page.frameLocator(iframeSelector).locator('body');
    const deadline = Date.now() + this.options.actionTimeoutMs;
    for (;;) {
      const text = normaliseText(await body.innerText());
      if (text !== '') return text;
      if (Date.now() >= deadline) throw new Error(`${iframeSelector} has markdown but rendered nothing`);
      await this.page.waitForTimeout(100);
    }
  }

  /**
   * The workflow page's Send an Update modal with `updateName` chosen. The page asks the workflow for its
   * Updates once, as it loads (a query its worker answers): when that query was not answered (a loaded
   * machine), the page is loaded again, until UPDATE_NAMES_FOR_MS passed.
   */
  private async updateModalNaming(
    workflowId: string,
    updateName: string,
    allowUnregistered: boolean,
  ): Promise<Locator> {
    const deadline = Date.now() + UPDATE_NAMES_FOR_MS;
    for (;;) {
      await this.openWorkflowRun(workflowId);
      await this.page.getByRole('button', { name: 'More Actions' }).click();
      await this.page.getByRole('menuitem', { name: 'Send an Update' }).click();
      const modal = this.page.getByRole('dialog', { name: 'Send an Update' });
      await modal.waitFor({ state: 'visible' });
      try {
        await this.chooseUpdateName(modal, updateName, allowUnregistered);
        return modal;
      } catch (error) {
        if (!(error instanceof NamesNotOffered) || Date.now() > deadline) throw error;
        await modal.getByRole('button', { name: 'Cancel' }).first().click();
      }
    }
  }

  /** The modal offers the names the workflow registered, then "Custom", which turns the field into a text box. */
  private async chooseUpdateName(
    modal: Locator,
    updateName: string,
    allowUnregistered: boolean,
  ): Promise<void> {
    const select = modal.getByTestId('update-select-button');
    if (!(await this.offersRegisteredNames(select))) {
      // The page could not learn the workflow's Updates (its metadata query was refused): Name is a plain box.
      if (!allowUnregistered)
        throw new NamesNotOffered(
          `the modal offers no registered Updates to check ${updateName} against (the page could not query them)`,
        );
      // Its label does not name it for the accessibility tree (2.53): found by its test id.
      await modal.getByTestId('update-name').fill(updateName);
      return;
    }
    await select.click();
    const custom = modal.getByRole('option', { name: 'Custom', exact: true });
    await custom.waitFor();
    // A registered Update's option shows its name, then its description (if it has one) under it.
    const named = new RegExp(`^\\s*${updateName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`);
    const registered = modal.getByRole('option').filter({ hasText: named });
    if ((await registered.count()) > 0) {
      await registered.click();
      return;
    }
    if (!allowUnregistered) {
      const offered = (await modal.getByRole('option').allInnerTexts()).map((name) => name.trim());
      throw new Error(
        `the workflow has not registered an Update named ${updateName}; the modal offers ${offered.join(', ')}`,
      );
    }
    await custom.click();
    await modal.getByRole('textbox', { name: 'Name' }).fill(updateName);
  }

  /**
   * The modal lists the workflow's registered Updates once the page's metadata query answered; until then,
   * and for good once the ui-server refused that query, Name is a plain text box.
   */
  private async offersRegisteredNames(select: Locator): Promise<boolean> {
    const deadline = Date.now() + NAMES_SHOW_WITHIN_MS;
    while (Date.now() < deadline) {
      if (await select.isVisible()) return true;
      if (await this.csrfRefusedSince(this.refusedBeforeStep)) return false;
      await this.page.waitForTimeout(100);
    }
    return false;
  }

  /**
   * After Submit the modal either closes and a toast says the Update succeeded, or stays open with an alert:
   * the failure's message, and for a handler failure its stack in a code block under it.
   */
  private async modalOutcome(modal: Locator): Promise<UpdateFromUiOutcome> {
    const alert = modal.getByRole('alert').filter({ hasText: /\S/ }).first();
    const toasts = this.page.getByTestId(/^toast-live-region-/);
    const deadline = Date.now() + this.options.actionTimeoutMs;
    while (Date.now() < deadline) {
      if (await alert.isVisible()) {
        const message = normaliseText(await alert.locator('p').first().innerText());
        const stack = alert.getByRole('textbox', { name: 'Stack Trace' });
        const trace = (await stack.count()) > 0 ? normaliseText(await stack.first().innerText()) : undefined;
        return { succeeded: false, message, trace };
      }
      if (!(await modal.isVisible())) {
        const toastText = normaliseText((await toasts.allInnerTexts()).join('\n'));
        if (/success/i.test(toastText)) return { succeeded: true };
        if (toastText !== '') return { succeeded: false, message: toastText, trace: undefined };
      }
      await this.page.waitForTimeout(100);
    }
    throw new Error(
      `the modal showed neither an error nor a success toast within ${this.options.actionTimeoutMs}ms`,
    );
  }

  private async readListedIds(): Promise<string[]> {
    const rows = this.page.getByTestId('workflows-summary-configurable-table-row');
    const hrefs = await rows.evaluateAll((elements) =>
      elements.map((row) => row.querySelector('a[href*="/workflows/"]')?.getAttribute('href') ?? ''),
    );
    return hrefs.map((href) => workflowIdFromHref(href));
  }

  /** Reads until `done` holds, reloading the page (until `ready` shows) between attempts; times out with what it saw last. */
  private async pollWithReload<T>(
    timeoutMs: number,
    read: () => Promise<T>,
    done: (seen: T) => boolean,
    ready: Locator = this.metadataSettled(),
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = await read();
      if (done(seen)) return seen;
      const refused = await this.csrfRefusedSince(this.refusedBeforeStep);
      if (refused) throw refused;
      if (Date.now() >= deadline) {
        throw new Error(`timed out after ${timeoutMs}ms; last seen: ${JSON.stringify(seen)}`);
      }
      await this.page.waitForTimeout(POLL_MS);
      await this.open(this.page.url(), ready);
    }
  }

  /**
   * Runs one step; it fails with its screenshot when `action` throws, and also when the ui-server refused any
   * of the page's requests for their CSRF token meanwhile: what the page then shows (no current details, an
   * Update's error) is the ui-server's refusal, not the workflow's answer.
   */
  private async step<T>(description: string, action: () => Promise<T>): Promise<T> {
    const refusedBefore = (this.refusedBeforeStep = this.csrfRefused.length);
    let result: T;
    try {
      result = await action();
    } catch (error) {
      if (error instanceof WebUiStepError) throw error;
      const cause = (await this.csrfRefusedSince(refusedBefore)) ?? error;
      throw new WebUiStepError(description, await this.failureScreenshot(description), cause);
    }
    const refused = await this.csrfRefusedSince(refusedBefore);
    if (refused) throw new WebUiStepError(description, await this.failureScreenshot(description), refused);
    return result;
  }

  private async csrfRefusedSince(count: number): Promise<CsrfRefusedError | undefined> {
    await Promise.all([...this.responsesRead]);
    const refused = this.csrfRefused.slice(count);
    return refused.length > 0 ? new CsrfRefusedError(refused) : undefined;
  }

  /** echo's CSRF middleware answers 400 "missing csrf token ..." or 403 "invalid csrf token" before Temporal sees anything. */
  private noteCsrfRefusal(response: Response): void {
    if (response.status() !== 400 && response.status() !== 403) return;
    const request = response.request();
    const read = response
      .text()
      .then((body) => {
        const message = /"message"\s*:\s*"([^"]*csrf[^"]*)"/i.exec(body)?.[1];
        if (message)
          this.csrfRefused.push(`${request.method()} ${new URL(request.url()).pathname}: ${message}`);
      })
      .catch(() => undefined)
      .finally(() => this.responsesRead.delete(read));
    this.responsesRead.add(read);
  }

  private async failureScreenshot(step: string): Promise<string | undefined> {
    const slug = step
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80);
    const path = join(this.options.failureScreenshotDir, `failed-${slug}-${Date.now()}.png`);
    try {
      return await this.screenshot(path);
    } catch {
      return undefined;
    }
  }
}

/**
 * The `decide` input a runbook's current details (as the UI rendered them) show for `action`, signed by `by`
 * as the page asks the operator to do.
 */
export function decisionShown(currentDetails: string, action: string, by: string): Decision {
  const line = currentDetails.split('\n').find((text) => text.includes(`{"action":"${action}"`));
  if (!line) throw new Error(`the current details show no input for ${action}:\n${currentDetails}`);
  const shown = JSON.parse(line.slice(line.indexOf('{'), line.lastIndexOf('}') + 1)) as Decision;
  return { ...shown, by };
}

function normaliseText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** `/namespaces/<ns>/workflows/<id>/<run>/timeline` → `<id>`. */
function workflowIdFromHref(href: string): string {
  const match = /\/workflows\/([^/?#]+)/.exec(href);
  if (!match?.[1]) throw new Error(`a list row links to ${JSON.stringify(href)}, not to a workflow`);
  return decodeURIComponent(match[1]);
}
