#!/usr/bin/env bash
# The Temporal CLI with its stdout on stderr: the dev server prints a banner on the stdout it inherits, and
# the bench's stdout carries only its result (a table, or the JSON document of --json).
exec "${MESH_BENCH_TEMPORAL_CLI:?}" "$@" >&2
