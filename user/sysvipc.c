// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "sysvipc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

const char *sysvipc_proc_root = "/proc";

/* Read up to @n unsigned numbers from a /proc file. */
static int read_numbers(const char *rel, uint64_t *v, int n, char *err,
			size_t errlen)
{
	char path[256];
	FILE *f;
	int got = 0;

	snprintf(path, sizeof(path), "%s/%s", sysvipc_proc_root, rel);
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
		return -e;
	}
	while (got < n && fscanf(f, "%" SCNu64, &v[got]) == 1)
		got++;
	fclose(f);
	if (got != n) {
		snprintf(err, errlen, "%s: expected %d number%s", path, n,
			 n > 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

static uint64_t mem_total(void)
{
	char path[256], line[256];
	uint64_t kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meminfo", sysvipc_proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int read_ipc_limits(struct ipc_limits *l, char *err, size_t errlen)
{
	uint64_t sem[4];
	int ret;

	memset(l, 0, sizeof(*l));
	if ((ret = read_numbers("sys/kernel/shmmax", &l->shmmax, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shmall", &l->shmall, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shmmni", &l->shmmni, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shm_rmid_forced",
				&l->shm_rmid_forced, 1, err, errlen)) ||
	    (ret = read_numbers("sys/kernel/sem", sem, 4, err, errlen)))
		return ret;
	l->semmsl = sem[0];
	l->semmns = sem[1];
	l->semopm = sem[2];
	l->semmni = sem[3];
	l->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	l->mem_total = mem_total();
	return 0;
}

int read_ipc_usage(struct ipc_usage *u, char *err, size_t errlen)
{
	struct shm_info shm;
	struct seminfo sem;

	memset(u, 0, sizeof(*u));
	if (shmctl(0, SHM_INFO, (struct shmid_ds *)&shm) < 0) {
		int e = errno;

		snprintf(err, errlen, "shmctl(SHM_INFO): %s", strerror(e));
		return -e;
	}
	if (semctl(0, 0, SEM_INFO, &sem) < 0) {
		int e = errno;

		snprintf(err, errlen, "semctl(SEM_INFO): %s", strerror(e));
		return -e;
	}
	u->segments = shm.used_ids;
	u->shm_tot = shm.shm_tot;
	/* SEM_INFO: semusz holds the sets in use, semaem the semaphores */
	u->sem_sets = sem.semusz;
	u->sems = sem.semaem;
	return 0;
}
