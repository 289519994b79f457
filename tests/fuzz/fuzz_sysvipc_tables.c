// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the /proc/sysvipc/shm, sem and msg parsers on any
 * text; the first byte picks the table.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sysvipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shm_row *shm = NULL;
	struct sem_row *sem = NULL;
	struct msg_row *msg = NULL;
	char err[512];
	size_t n = 0;
	FILE *f;

	if (size < 2)
		return 0;
	f = fmemopen((void *)(data + 1), size - 1, "r");
	if (!f)
		return 0;
	if (data[0] % 3 == 2) {
		if (parse_msg_table(f, "msg", &msg, &n, err, sizeof(err)) == 0)
			free(msg);
	} else if (data[0] & 1) {
		if (parse_sem_table(f, "sem", &sem, &n, err, sizeof(err)) == 0)
			free_sem_rows(sem, n);
	} else {
		if (parse_shm_table(f, "shm", &shm, &n, err, sizeof(err)) == 0)
			free(shm);
	}
	fclose(f);
	return 0;
}
