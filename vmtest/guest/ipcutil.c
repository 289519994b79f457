// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "ipcutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Guest runs under TCG with lockdep: be generous. */
#define BLOCK_WAIT_MS 20000

static void die(const char *what)
{
	fprintf(stderr, "ipcutil: %s: %s\n", what, strerror(errno));
	exit(2);
}

unsigned long sysctl_get(const char *name)
{
	char path[128];
	unsigned long value;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f)
		die(path);
	if (fscanf(f, "%lu", &value) != 1) {
		errno = EINVAL;
		die(path);
	}
	fclose(f);
	return value;
}

int sysctl_set(const char *name, const char *value)
{
	char path[128];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

void sysctl_must_set(const char *name, unsigned long value)
{
	char buf[32];
	int err;

	snprintf(buf, sizeof(buf), "%lu", value);
	err = sysctl_set(name, buf);
	if (err) {
		errno = -err;
		die(name);
	}
}

void fresh_ipc_ns(void)
{
	if (unshare(CLONE_NEWIPC))
		die("unshare(CLONE_NEWIPC)");
}

unsigned long ipc_ns_inum(void)
{
	struct stat st;

	if (stat("/proc/self/ns/ipc", &st))
		die("/proc/self/ns/ipc");
	return st.st_ino;
}

pid_t spawn_semop(int semid, const struct sembuf *sops, size_t nsops,
		  long timeout_ms)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct timespec ts = {
			.tv_sec = timeout_ms / 1000,
			.tv_nsec = (timeout_ms % 1000) * 1000000,
		};
		int ret;

		ret = semtimedop(semid, (struct sembuf *)sops, nsops,
				 timeout_ms < 0 ? NULL : &ts);
		_exit(ret ? errno : 0);
	}
	return pid;
}

/* State letter and current syscall number of a task, from /proc. */
static bool task_in_syscall(pid_t pid, char *state, long *nr)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return false;
	*state = p[2];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p)
		return false;
	/* "running" while on a CPU, else the syscall number */
	return sscanf(buf, "%ld", nr) == 1;
}

uint64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

bool wait_in_semop(pid_t pid)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	uint64_t deadline = mono_ms() + BLOCK_WAIT_MS;

	while (mono_ms() < deadline) {
		char state = 0;
		long nr = -1;

		if (task_in_syscall(pid, &state, &nr) && state == 'S' &&
		    (nr == SYS_semop || nr == SYS_semtimedop))
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

pid_t spawn(int (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

const char *guest_kernel(void)
{
	const char *k = getenv("IPCWATCH_KERNEL");

	return k && *k ? k : "main";
}

bool on_kernel(const char *name)
{
	return !strcmp(guest_kernel(), name);
}
