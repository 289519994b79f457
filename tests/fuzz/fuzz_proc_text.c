// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the small /proc texts ipcwatch reads: the numbers
 * of /proc/sys/kernel (shmmax, sem, ...) and a /proc/<pid>/stat line.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysvipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long ticks;
	uint64_t v[8];
	char *line;
	FILE *f;

	f = fmemopen((void *)data, size ? size : 1, "r");
	if (f) {
		(void)parse_numbers(f, v, 8);
		fclose(f);
	}
	/* a stat line is a string: NUL-terminated, as the reader gives it */
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	(void)parse_pid_stat(line, &ticks);
	free(line);
	return 0;
}
