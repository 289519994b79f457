// SPDX-License-Identifier: GPL-2.0
/*
 * Demo workload for `make demo`: what a database host does with System
 * V IPC, plus the mistakes the ipc tracepoints explain. Runs in its own
 * IPC namespace so the limits it lowers are its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what, int ret)
{
	printf("workload: %-52s -> %s\n", what, ret < 0 ? strerror(errno) : "ok");
}

static void set_sysctl(const char *name, const char *value)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "w");
	if (f) {
		fputs(value, f);
		fclose(f);
	}
}

int main(void)
{
	struct sembuf take[2] = { { 1, 0, 0 }, { 0, -1, 0 } };
	struct sembuf give = { 0, 1, 0 };
	int buffers, sems, id;
	void *addr;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (unshare(CLONE_NEWIPC))
		perror("unshare");

	buffers = shmget(0x5432001, 16 << 20, IPC_CREAT | 0600);
	say("shmget 16 MiB shared buffers, key 0x5432001", buffers);
	addr = shmat(buffers, NULL, 0);
	say("shmat the buffers", addr == (void *)-1 ? -1 : 0);
	say("restart asks for 32 MiB under the same key",
	    shmget(0x5432001, 32 << 20, IPC_CREAT | 0600));

	set_sysctl("shmmax", "67108864");
	say("shmget 96 MiB with kernel.shmmax = 64 MiB",
	    shmget(IPC_PRIVATE, 96 << 20, IPC_CREAT | 0600));
	set_sysctl("shmall", "8192");
	say("shmget 48 MiB with kernel.shmall = 8192 pages",
	    shmget(IPC_PRIVATE, 48 << 20, IPC_CREAT | 0600));
	say("shmat at an address that wraps around",
	    shmat(buffers, (void *)-4096L, 0) == (void *)-1 ? -1 : 0);

	pid = fork();
	if (pid == 0) {
		/* a worker that leaves an orphan behind */
		id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
		_exit(id < 0);
	}
	waitpid(pid, NULL, 0);
	say("worker exited, leaving a 1 MiB orphan", 0);
	set_sysctl("shm_rmid_forced", "1");
	say("kernel.shm_rmid_forced = 1 reaps it", 0);

	sems = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	pid = fork();
	if (pid == 0)
		_exit(semop(sems, take, 2) < 0);
	usleep(300000);
	say("a backend sleeps in a two-operation semop", 0);
	say("semop +1 wakes it", semop(sems, &give, 1));
	waitpid(pid, NULL, 0);

	shmctl(buffers, IPC_RMID, NULL);
	say("IPC_RMID while attached, then shmdt", shmdt(addr));
	semctl(sems, 0, IPC_RMID);
	return 0;
}
