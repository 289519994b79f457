// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (make bench, not make check): the CPU cost of one ipcwatch
 * top refresh with 32768 segments, and with 32000 semaphore sets. Only
 * reports numbers; nothing here passes or fails on time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "bench";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run top for three refreshes and report what --stats said. */
static void measure(const char *what, const char *format)
{
	const char *json[] = { "ipcwatch", "top", "-b", "-n", "3", "-d", "1",
			       "--stats", "--json", NULL };
	const char *text[] = { "ipcwatch", "top", "-b", "-n", "3", "-d", "1",
			       "--stats", NULL };
	struct ipcwatch_run r;
	double start = now_s(), ms;
	char *line, *save = NULL;
	int n = 0, refresh;

	ipcwatch_exec(&r, strcmp(format, "json") ? text : json, NULL, NULL);
	tap_is(r.status, 0, "%s_%s.ran", what, format);
	for (line = strtok_r(r.err, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "ipcwatch top: refresh %d: %lf ms CPU",
			   &refresh, &ms) == 2) {
			tap_diag("bench: top %s %s refresh %d: %.1f ms CPU",
				 what, format, refresh, ms);
			n++;
		}
	tap_diag("bench: top %s %s: %.1f s wall for 3 refreshes, %zu bytes "
		 "of output", what, format, now_s() - start, strlen(r.out));
	tap_is(n, 3, "%s_%s.three_refreshes_measured", what, format);
	ipcwatch_free(&r);
}

int main(void)
{
	double t;
	int i, made = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fresh_ipc_ns();
	sysctl_must_set("shmmni", 32768);
	t = now_s();
	for (i = 0; i < 32768; i++)
		made += shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600) >= 0;
	tap_is(made, 32768, "segments_32768.created");
	tap_diag("bench: created %d segments in %.1f s", made, now_s() - t);
	measure("segments_32768", "text");
	measure("segments_32768", "json");

	fresh_ipc_ns();
	t = now_s();
	for (i = 0, made = 0; i < 32000; i++)
		made += semget(IPC_PRIVATE, 1, IPC_CREAT | 0600) >= 0;
	tap_is(made, 32000, "semsets_32000.created");
	tap_diag("bench: created %d semaphore sets in %.1f s", made,
		 now_s() - t);
	measure("semsets_32000", "text");
	measure("semsets_32000", "json");
	return tap_done();
}
