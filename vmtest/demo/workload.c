// SPDX-License-Identifier: GPL-2.0
/*
 * Demo workload for `make demo`: what a database host does with System
 * V IPC, plus the mistakes ipcwatch explains.
 *
 *   workload          one pass, in its own IPC namespace, then exit
 *   workload --live   keep a small "database" running in this namespace
 *                     until SIGTERM, for ipcwatch top to watch
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
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

static int one_pass(void)
{
	struct sembuf take[2] = { { 1, 0, 0 }, { 0, -1, 0 } };
	struct sembuf give = { 0, 1, 0 };
	int buffers, sems, id;
	void *addr;
	pid_t pid;

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

/* ---- --live ------------------------------------------------------------ */

static pid_t children[16];
static int nchildren;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static pid_t child(const char *name, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(1);
		return 0;
	}
	children[nchildren++] = pid;
	return pid;
}

/* postgres (uid 1000): shared buffers, attached by three backends */
static void database(void)
{
	int id, i;

	if (child("postgres", 1000))
		return;
	id = shmget(0x5432001, 64 << 20, IPC_CREAT | 0600);
	shmat(id, NULL, 0);
	for (i = 0; i < 3; i++)
		if (fork() == 0) {
			prctl(PR_SET_NAME, "pg-backend", 0, 0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			for (;;)
				pause();
		}
	for (;;)
		pause();
}

/* backends that sleep on a lock semaphore, released every 3 s */
static void lock_waiters(int sems)
{
	struct sembuf lock = { 0, -1, 0 };
	struct sembuf both[2] = { { 1, 0, 0 }, { 2, -1, 0 } };
	struct sembuf release[2] = { { 0, 1, 0 }, { 2, 1, 0 } };

	if (!child("pg-locker", 0))
		for (;;)
			semop(sems, &lock, 1);
	/* starts late, so ipcwatch sees it fall asleep, and never wakes:
	 * it waits for zero on a semaphore nobody takes */
	if (!child("pg-vacuum", 0)) {
		sleep(4);
		for (;;)
			semop(sems, both, 2);
	}
	if (!child("pg-releaser", 0))
		for (;;) {
			sleep(3);
			semop(sems, release, 2);
		}
}

static int live(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	union semun { int val; } one = { .val = 1 };
	int sems, tick = 0, id, i;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	database();
	/* a crashed worker of uid 1001 left 8 MiB behind */
	if (!child("etl-worker", 1001)) {
		shmget(0xe71, 8 << 20, IPC_CREAT | 0600);
		_exit(0);
	}
	sems = semget(0x5e3a, 3, IPC_CREAT | 0600);
	semctl(sems, 1, SETVAL, one);
	lock_waiters(sems);

	while (!stop) {
		sleep(1);
		switch (tick++ % 6) {
		case 1:	/* a restart asking for more than exists */
			shmget(0x5432001, 128 << 20, 0600);
			break;
		case 3:	/* a temporary segment, created and removed */
			id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
			shmctl(id, IPC_RMID, NULL);
			break;
		case 5:	/* a bad size */
			shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600);
			break;
		}
	}
	for (i = 0; i < nchildren; i++)
		kill(children[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	semctl(sems, 0, IPC_RMID);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--live"))
		return live();
	return one_pass();
}
