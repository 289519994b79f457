// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch events, end to end, in both modes: drive every event path,
 * then check what `ipcwatch events --json` reported against what the
 * test saw (ids, errnos, pids, namespaces). Also the lost-event count,
 * filters and bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ipcutil.h"
#include "lsm_deny.skel.h"
#include "runner.h"
#include "tap.h"

#ifndef SHM_HUGE_SHIFT
#define SHM_HUGE_SHIFT 26
#endif

const char *tap_suite = "ipcwatch_events";

static const char *mode;	/* "tracepoint" or "fentry" */
static long page_size;

/* ---- expectations, checked once ipcwatch has stopped -------------------- */

struct create_exp {
	int key;
	pid_t pid;
	unsigned long ns;
	size_t size;
	int id;			/* -1 if refused */
	int err;		/* errno the caller saw */
	const char *reason;
	unsigned long existing_size;
	long long shm_tot;	/* -1: not checked */
};

struct destroy_exp {
	const char *name;
	unsigned long ns;
	int id;
	int key;
	size_t size;
	pid_t cpid;
	const char *cause;
};

struct sem_exp {
	const char *name;
	pid_t pid;
	int id;
	int nsops, index, sem_num, sem_op;
	const char *counts_as;
	bool timeout;
	int err;		/* of the wake-up */
};

/* A semget() and what its sem_create must say. */
struct semc_exp {
	int key;
	pid_t pid;
	unsigned long ns;
	int nsems;
	int id;			/* -1 if refused */
	int err;
	const char *reason;	/* NULL: injected, nomem expected among them */
	int existing_nsems;
	int used_sems;		/* -1: not checked */
	int semmsl, semmns, semmni;	/* kernel.sem at the time */
};

/* A removed set, and the SEM_UNDO adjustments of a task at exit. */
struct semd_exp {
	const char *name;
	unsigned long ns;
	pid_t pid;		/* remover; 0 for a kernel worker */
	int id, key, nsems, waiters, undos;
	const char *cause;
};

static struct semc_exp semcs[160];
static int nsemcs;
static struct semd_exp semds[4];
static int nsemds;
static struct {
	unsigned long ns;
	pid_t pid;
	int id;
} sem_undone;
static unsigned long sem_torn_down_ns;

static struct semc_exp *sem_create(int key, int nsems, int flags,
				   const char *reason, int used_sems);

static struct create_exp creates[128];
static int ncreates;
static struct destroy_exp destroys[16];
static int ndestroys;
static struct sem_exp sems[16];
static int nsems;
static int next_key = 0x7000;

/* Position in the stream of the nth event of @type matching @pairs, or -1. */
static int vfind_at(const struct ipcwatch_run *r, const char *type, int nth,
		    va_list pairs)
{
	int i;

	for (i = 0; i < r->nevents; i++) {
		json_object *o = r->events[i];
		const char *key;
		bool ok = !strcmp(jstr(o, "type"), type);
		va_list ap;

		va_copy(ap, pairs);
		while (ok && (key = va_arg(ap, const char *)))
			ok = jint(o, key) == va_arg(ap, long long);
		va_end(ap);
		if (ok && nth-- == 0)
			return i;
	}
	return -1;
}

/* The nth event of @type matching every (key, value) pair given. */
static json_object *find(const struct ipcwatch_run *r, const char *type,
			 int nth, ...)
{
	va_list ap;
	int i;

	va_start(ap, nth);
	i = vfind_at(r, type, nth, ap);
	va_end(ap);
	return i < 0 ? NULL : r->events[i];
}

/* The same, as a position in the stream (-1: none), to check order. */
static int find_at(const struct ipcwatch_run *r, const char *type, int nth,
		   ...)
{
	va_list ap;
	int i;

	va_start(ap, nth);
	i = vfind_at(r, type, nth, ap);
	va_end(ap);
	return i;
}

/*
 * Enter a fresh IPC namespace and keep it alive to the end: a freed
 * namespace's inode number is reused, and events are matched by it.
 */
static unsigned long begin(void)
{
	fresh_ipc_ns();
	if (open("/proc/self/ns/ipc", O_RDONLY) < 0)
		exit(2);
	return ipc_ns_inum();
}

/* shmget() with a fresh key, its outcome recorded for checking. */
static int create(size_t size, int flags, const char *reason)
{
	struct create_exp *x = &creates[ncreates++];
	int id;

	x->key = next_key++;
	x->pid = getpid();
	x->ns = ipc_ns_inum();
	x->size = size;
	x->reason = reason;
	x->shm_tot = -1;
	id = shmget(x->key, size, IPC_CREAT | flags | 0600);
	x->id = id;
	x->err = id < 0 ? errno : 0;
	return id;
}

/* ---- the workload --------------------------------------------------------- */

static int created_before_start;	/* key 0x1111, 12345 bytes */
static unsigned long ns_before_start;
static int ns_before_start_fd = -1;

/* A segment that exists before ipcwatch starts; we stay in its ns. */
static void create_before_start(void)
{
	ns_before_start = begin();
	if (ns_before_start_fd >= 0)
		close(ns_before_start_fd);
	ns_before_start_fd = open("/proc/self/ns/ipc", O_RDONLY);
	created_before_start = shmget(0x1111, 12345, IPC_CREAT | 0600);
}

static void drive_creates(void)
{
	struct create_exp *x;
	int ret;

	/* the namespace that already had a 12345-byte segment: 4 pages */
	create(5000, 0, "ok");
	creates[ncreates - 1].shm_tot = 4;

	begin();
	create(0, 0, "too_small");
	sysctl_must_set("shmmax", 8192);
	create(8193, 0, "over_shmmax");
	sysctl_must_set("shmmax", ~0UL);
	create(~0UL - 10, 0, "page_overflow");
	sysctl_must_set("shmall", 10);
	create(65536, 0, "over_shmall");
	sysctl_must_set("shmall", 0);
	create(1, 0, "over_shmall");
	sysctl_must_set("shmall", 1000);
	create(4096, SHM_HUGETLB | (5 << SHM_HUGE_SHIFT), "bad_hugepage");
	sysctl_must_set("shmmni", 1);
	create(4096, 0, "ok");
	creates[ncreates - 1].shm_tot = 0;
	create(4096, 0, "no_ids");

	/* an existing key, too small for the request */
	begin();
	shmget(0x5432001, 16 * page_size, IPC_CREAT | 0600);
	x = &creates[ncreates++];
	x->key = 0x5432001;
	x->pid = getpid();
	x->ns = ipc_ns_inum();
	x->size = 32 * page_size;
	x->reason = "existing_smaller";
	x->existing_size = 16 * page_size;
	x->shm_tot = 16;
	ret = shmget(0x5432001, 32 * page_size, 0600);
	x->id = ret;
	x->err = ret < 0 ? errno : 0;
}

/*
 * A security module's refusal, and its -ENOMEM, which is what
 * security_*_alloc() return when the modules' blob cannot be allocated.
 */
static void drive_lsm_denied(void)
{
	static const struct {
		int err;
		const char *reason;
	} denials[] = { { EPERM, "lsm_denied" }, { ENOMEM, "nomem" } };
	struct lsm_deny_bpf *skel;
	size_t i;

	for (i = 0; i < sizeof(denials) / sizeof(denials[0]); i++) {
		skel = lsm_deny_bpf__open();
		if (!tap_ok(skel != NULL, "%s.lsm_deny_helper_opens_%s", mode,
			    denials[i].reason))
			return;
		skel->rodata->target_tgid = getpid();
		skel->rodata->deny_errno = denials[i].err;
		if (tap_ok(!lsm_deny_bpf__load(skel) &&
			   !lsm_deny_bpf__attach(skel),
			   "%s.lsm_deny_helper_attaches_%s", mode,
			   denials[i].reason)) {
			begin();
			create(4096, 0, denials[i].reason);
			sem_create(0, 2, IPC_CREAT, denials[i].reason, 0);
		}
		lsm_deny_bpf__destroy(skel);
	}
}

/* Fail the nth allocation of shmget(): nomem first, file_setup later. */
static void drive_injected_failures(void)
{
	int fd = open("/proc/thread-self/fail-nth", O_WRONLY), n;
	char nth[16];

	if (fd < 0)
		return;
	begin();
	for (n = 1; n < 100; n++) {
		struct create_exp *x = &creates[ncreates++];
		int id;

		/* everything but shmget() itself before arming */
		x->key = next_key++;
		x->pid = getpid();
		x->ns = ipc_ns_inum();
		x->size = 4096;
		x->shm_tot = -1;
		snprintf(nth, sizeof(nth), "%d", n);
		if (write(fd, nth, strlen(nth)) < 0)
			break;
		id = shmget(x->key, 4096, IPC_CREAT | 0600);
		x->err = id < 0 ? errno : 0;
		if (write(fd, "0", 1) < 0)
			break;
		x->id = id;
		if (id >= 0) {
			x->reason = "ok";
			break;
		}
		if (ncreates == (int)(sizeof(creates) / sizeof(*creates)))
			break;
	}
	close(fd);
}

static int total_wrap_key;

static void drive_total_wrap(void)
{
	size_t huge = LONG_MAX;
	unsigned long pages = (huge + page_size - 1) / page_size;
	unsigned long fit = ~0UL / pages, i;
	struct create_exp *x;

	begin();
	sysctl_must_set("shmmni", 2 * fit + 16);
	for (i = 0; i < fit; i++)
		shmget(IPC_PRIVATE, huge, IPC_CREAT | SHM_NORESERVE | 0600);
	x = &creates[ncreates];
	create(huge, SHM_NORESERVE, "total_wrap");
	x->shm_tot = (long long)(fit * pages);
	total_wrap_key = x->key;
}

static void *attached;
static int shmat_id;
static unsigned long shmat_ns;

static void drive_shmat(void)
{
	void *top = (void *)(~0UL - (unsigned long)page_size + 1);

	shmat_ns = begin();
	shmat_id = shmget(IPC_PRIVATE, 2 * page_size, IPC_CREAT | 0600);
	attached = shmat(shmat_id, NULL, 0);
	shmat(shmat_id, top, 0);
	shmdt(attached);
}

static int create_and_exit(void *arg)
{
	int *fds = arg;
	int id = shmget(IPC_PRIVATE, 3 * 4096, IPC_CREAT | 0600);

	return write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1;
}

static int orphan(pid_t *pid)
{
	int fds[2], id = -1;

	if (pipe(fds))
		exit(2);
	*pid = spawn(create_and_exit, fds);
	reap(*pid);
	if (read(fds[0], &id, sizeof(id)) != sizeof(id))
		id = -1;
	close(fds[0]);
	close(fds[1]);
	return id;
}

static int in_new_ns(void *arg)
{
	int *fds = arg;
	unsigned long ns;
	int id;

	fresh_ipc_ns();
	ns = ipc_ns_inum();
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	return write(fds[1], &ns, sizeof(ns)) == sizeof(ns) &&
	       write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1;
}

static void expect_destroy(const char *name, unsigned long ns, int id,
			   int key, size_t size, pid_t cpid, const char *cause)
{
	destroys[ndestroys++] = (struct destroy_exp){
		name, ns, id, key, size, cpid, cause };
}

/* The namespace drive_destroys() lets go: freed from a workqueue. */
static unsigned long torn_down_ns;

/* The segment left behind by its creator with forced removal off. */
static struct {
	unsigned long ns;
	int id;
	pid_t pid;
} orphaned;

static void drive_destroys(void)
{
	unsigned long ns;
	int id, fds[2];
	pid_t pid;
	void *addr;

	/* the segment that existed before ipcwatch started */
	if (setns(ns_before_start_fd, CLONE_NEWIPC) == 0) {
		addr = shmat(created_before_start, NULL, 0);
		shmctl(created_before_start, IPC_RMID, NULL);
		shmdt(addr);
		/* IPC_RMID of an attached segment makes its key private */
		expect_destroy("destroy_existing_last_detach", ns_before_start,
			       created_before_start, IPC_PRIVATE, 12345,
			       getpid(), "last_detach");
	}

	ns = begin();
	id = shmget(0x77, 4096, IPC_CREAT | 0600);
	shmctl(id, IPC_RMID, NULL);
	expect_destroy("destroy_rmid", ns, id, 0x77, 4096, getpid(), "rmid");

	sysctl_must_set("shm_rmid_forced", 1);
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	addr = shmat(id, NULL, 0);
	shmdt(addr);
	expect_destroy("destroy_forced_detach", ns, id, 0, 4096, getpid(),
		       "forced_detach");
	/* a shmat() whose range overlaps a mapping fails, and frees it */
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	addr = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shmat(id, addr, 0) != (void *)-1)
		exit(2);
	munmap(addr, 4096);
	expect_destroy("destroy_shmat_failed", ns, id, 0, 4096, getpid(),
		       "shmat_failed");
	id = orphan(&pid);
	expect_destroy("destroy_orphan_exit", ns, id, 0, 3 * 4096, pid,
		       "orphan_exit");

	ns = begin();
	id = orphan(&pid);
	orphaned.ns = ns;
	orphaned.id = id;
	orphaned.pid = pid;
	sysctl_must_set("shm_rmid_forced", 1);
	expect_destroy("destroy_orphan_sysctl", ns, id, 0, 3 * 4096, pid,
		       "orphan_sysctl");

	if (pipe(fds))
		exit(2);
	pid = spawn(in_new_ns, fds);
	reap(pid);
	if (read(fds[0], &ns, sizeof(ns)) == sizeof(ns) &&
	    read(fds[0], &id, sizeof(id)) == sizeof(id)) {
		expect_destroy("destroy_ns_exit", ns, id, 0, 4096, pid,
			       "ns_exit");
		torn_down_ns = ns;
	}
	close(fds[0]);
	close(fds[1]);
}

static unsigned long shmctl_ns;
static int shmctl_id;

static void drive_shmctl(void)
{
	struct shmid_ds ds;

	shmctl_ns = begin();
	shmctl_id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	shmctl(shmctl_id, IPC_STAT, &ds);
	shmctl(shmctl_id + 1000, IPC_STAT, &ds);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int semop_until_signal(void *arg)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct sembuf dec = { 0, -1, 0 };

	sigaction(SIGUSR1, &sa, NULL);
	return semop(*(int *)arg, &dec, 1) ? errno : 0;
}

static void expect_sem(const char *name, pid_t pid, int id, int nsops,
		       int index, int num, int op, bool timeout, int err)
{
	sems[nsems++] = (struct sem_exp){ name, pid, id, nsops, index, num,
		op, op ? "ncnt" : "zcnt", timeout, err };
}

/*
 * The guest clock may be jiffies (TSC calibration fails under TCG):
 * with the sleeper seen asleep, wait for the monotonic clock (the one
 * slept_ns is read from) to move on, so slept_ns is above 0.
 */
static void let_it_sleep(void)
{
	struct timespec t0, t, pause = { .tv_nsec = 1000000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec == t0.tv_sec && t.tv_nsec == t0.tv_nsec);
}

static void drive_sems(void)
{
	struct sembuf dec0 = { 0, -1, 0 }, post0 = { 0, 1, 0 };
	struct sembuf zero1 = { 1, 0, 0 };
	struct sembuf complex[2] = { { 2, 0, 0 }, { 0, -1, 0 } };
	union semun one = { .val = 1 };
	pid_t pid;
	int id;

	begin();
	id = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
	semctl(id, 1, SETVAL, one);

	pid = spawn_semop(id, &dec0, 1, -1);
	tap_ok(wait_in_semop(pid), "sem_simple.sleeper_sleeps");
	let_it_sleep();
	semop(id, &post0, 1);
	reap(pid);
	expect_sem("sem_simple", pid, id, 1, 0, 0, -1, false, 0);

	pid = spawn_semop(id, complex, 2, -1);
	tap_ok(wait_in_semop(pid), "sem_complex.sleeper_sleeps");
	let_it_sleep();
	semop(id, &post0, 1);
	reap(pid);
	expect_sem("sem_complex", pid, id, 2, 1, 0, -1, false, 0);

	pid = spawn_semop(id, &zero1, 1, 200);
	reap(pid);
	expect_sem("sem_timeout", pid, id, 1, 0, 1, 0, true, EAGAIN);

	pid = spawn(semop_until_signal, &id);
	tap_ok(wait_in_semop(pid), "sem_signal.sleeper_sleeps");
	let_it_sleep();
	kill(pid, SIGUSR1);
	reap(pid);
	expect_sem("sem_signal", pid, id, 1, 0, 0, -1, false, EINTR);

	pid = spawn_semop(id, &dec0, 1, -1);
	tap_ok(wait_in_semop(pid), "sem_removed.sleeper_sleeps");
	let_it_sleep();
	semctl(id, 0, IPC_RMID);
	reap(pid);
	expect_sem("sem_removed", pid, id, 1, 0, 0, -1, false, EIDRM);
}

static int semtimedop_until_signal(void *arg)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct sembuf dec = { 0, -1, 0 };
	struct timespec ts = { .tv_sec = 60 };

	sigaction(SIGUSR1, &sa, NULL);
	return semtimedop(*(int *)arg, &dec, 1, &ts) ? errno : 0;
}

/*
 * A task asleep in semop() before ipcwatch started: fentry mode never
 * saw it block (its sleep began before the trampoline), so its wake-up
 * must not be reported as if it had; kprobe mode likewise. Tracepoint
 * mode reports the wake-up with slept_ns 0 (the block not seen).
 */
static struct {
	int id;
	pid_t pid;
	bool asleep;
} early;

static void sleep_before_start(void)
{
	struct sembuf dec = { 0, -1, 0 };

	early.id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	early.pid = spawn_semop(early.id, &dec, 1, -1);
	early.asleep = wait_in_semop(early.pid);
}

/* Its set is in the namespace it was made in, the one before start. */
static int post_early(void *arg)
{
	struct sembuf post = { 0, 1, 0 };

	(void)arg;
	if (setns(ns_before_start_fd, CLONE_NEWIPC))
		return 1;
	if (semop(early.id, &post, 1))
		return 2;
	return semctl(early.id, 0, IPC_RMID) ? 3 : 0;
}

/* What one semop() up and one down cost, in ns (a diagnostic only:
 * the figures belong to make bench). */
static long semop_pair_ns(void)
{
	struct sembuf up = { 0, 1, 0 }, down = { 0, -1, 0 };
	struct timespec t0, t1;
	const int n = 20000;
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600), i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		if (semop(id, &up, 1) || semop(id, &down, 1))
			break;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	semctl(id, 0, IPC_RMID);
	return ((t1.tv_sec - t0.tv_sec) * 1000000000L +
		(t1.tv_nsec - t0.tv_nsec)) / n;
}

static pid_t nonblocking_pid, polling_pid;

/*
 * semop()s that never block, on sem 3 (0 before and after), the last
 * one waking a sleeper on sem 2: neither they nor the wake-up they
 * cause are this task's sem events.
 */
static int nonblocking_semops(void *arg)
{
	struct sembuf up = { 3, 1, 0 }, down = { 3, -1, 0 };
	struct sembuf nowait = { 3, -1, IPC_NOWAIT }, wake = { 2, 1, 0 };
	struct timespec ts = { .tv_sec = 5 };
	int id = *(int *)arg, i, bad = 0;

	for (i = 0; i < 20; i++) {
		bad |= semop(id, &up, 1) || semop(id, &down, 1);
		bad |= semop(id, &nowait, 1) == 0 || errno != EAGAIN;
		bad |= semtimedop(id, &up, 1, &ts) ||
		       semtimedop(id, &down, 1, &ts);
	}
	bad |= semop(id, &wake, 1) != 0;
	return bad;
}

/* Sleeps in schedule_hrtimeout_range(), as semop() does, not in it. */
static int poll_select_epoll(void *arg)
{
	struct epoll_event ev;
	struct timeval tv;
	int ep = epoll_create1(0), i;

	(void)arg;
	for (i = 0; i < 5; i++) {
		poll(NULL, 0, 10);
		tv = (struct timeval){ .tv_usec = 10000 };
		select(0, NULL, NULL, NULL, &tv);
		epoll_wait(ep, &ev, 1, 10);
	}
	close(ep);
	return 0;
}

/* Memory a child's writes reach the parent through. */
static void *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

/* Wait until another process makes *@v at least @want; false on timeout. */
static bool wait_for(const volatile int *v, int want)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	uint64_t deadline = mono_ms() + 20000;

	while (*v < want) {
		if (mono_ms() >= deadline)
			return false;
		nanosleep(&pause, NULL);
	}
	return true;
}

/*
 * A semop() that returns -EINTR with no signal delivered to its thread,
 * retried from the same stack: a group stop. The thread that sleeps is
 * not the one that takes the SIGSTOP, so its sleep ends by the stop's
 * wake-up alone, and it stops on its way out without a signal_deliver.
 */
struct stopped_retry {
	int id;
	volatile int tid;
	volatile int eintr;
};

static struct {
	pid_t pid, tid;
} retry;

static void *retry_semop(void *arg)
{
	struct stopped_retry *sr = arg;
	struct sembuf dec = { 0, -1, 0 };
	int eintr = 0, ret;
	sigset_t all;

	/* every signal but SIGSTOP and SIGKILL, which cannot be blocked, is
	 * the main thread's; the SIGSTOP goes to the main thread as well,
	 * the one kill() names and willing to take it (complete_signal()) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	sr->tid = syscall(SYS_gettid);
	while ((ret = semop(sr->id, &dec, 1)) == -1 && errno == EINTR)
		sr->eintr = ++eintr;
	/* _exit() ends the whole process, the main thread in pause() too */
	_exit(ret ? 3 : eintr == 1 ? 0 : 10 + eintr);
}

static int stopped_retry_child(void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, retry_semop, arg))
		return 1;
	for (;;)
		pause();
}

static void drive_stopped_retry(void)
{
	struct sembuf post = { 0, 1, 0 };
	struct stopped_retry *sr = shared_page();
	bool asleep, stopped = false, again;
	int wstatus = 0, status = -1;

	sr->id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	retry.pid = spawn(stopped_retry_child, sr);
	/* /proc/<tid>/ is there for any thread, not only for the leader */
	asleep = wait_for(&sr->tid, 1) && wait_in_semop(sr->tid);
	retry.tid = sr->tid;
	tap_ok(asleep, "%s.stopped_retry.sleeper_sleeps", mode);
	let_it_sleep();
	kill(retry.pid, SIGSTOP);
	if (waitpid(retry.pid, &wstatus, WUNTRACED) == retry.pid) {
		stopped = WIFSTOPPED(wstatus);
		/* an exit seen here is not there to reap */
		if (WIFEXITED(wstatus))
			status = WEXITSTATUS(wstatus);
	}
	if (!tap_ok(stopped, "%s.stopped_retry.group_stops", mode))
		tap_diag("  wait status 0x%x", wstatus);
	kill(retry.pid, SIGCONT);
	/* its first call returned (counted) before the second one sleeps */
	again = stopped && wait_for(&sr->eintr, 1) &&
		wait_in_semop(sr->tid);
	tap_ok(again, "%s.stopped_retry.sleeps_again", mode);
	let_it_sleep();
	semop(sr->id, &post, 1);
	if (stopped)
		status = reap(retry.pid);
	tap_is(status, 0, "%s.stopped_retry.eintr_once", mode);
	semctl(sr->id, 0, IPC_RMID);
	munmap(sr, 4096);
}

/*
 * Run counts of every BPF program loaded, with BPF_STATS_RUN_TIME on:
 * what ran between two sums, whoever loaded it.
 */
static unsigned long long bpf_runs(void)
{
	unsigned long long n = 0;
	__u32 id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)		/* unloaded since */
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.run_cnt;
		close(fd);
	}
	return n;
}

#define FAST_PATH_PAIRS	2000

struct fast_path {
	unsigned long long runs;
	int err;
};

/*
 * semop()s that never block, in a child of their own: the runs of
 * every program while they go, the rest of the system being idle.
 */
static int fast_path_semops(void *arg)
{
	struct sembuf up = { 0, 1, 0 }, down = { 0, -1, 0 };
	struct fast_path *fp = arg;
	unsigned long long before;
	int id, stats, i;

	id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (id < 0)
		return 1;
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0) {
		fp->err = -stats;
		semctl(id, 0, IPC_RMID);
		return 2;
	}
	before = bpf_runs();
	for (i = 0; i < FAST_PATH_PAIRS; i++)
		if (semop(id, &up, 1) || semop(id, &down, 1))
			break;
	fp->runs = bpf_runs() - before;
	close(stats);
	semctl(id, 0, IPC_RMID);
	return i == FAST_PATH_PAIRS ? 0 : 3;
}

/*
 * Nothing of ours on semop()'s non-blocking path: no program runs for
 * it in fentry and tracepoint mode (what runs is other tasks' sleeps,
 * ipcwatch's own epoll_wait() among them). kprobe mode, whose programs
 * on __do_semtimedop() run for every call, shows the count works.
 */
static void drive_fast_path_runs(void)
{
	struct fast_path *fp = shared_page();
	const long long ops = 2 * FAST_PATH_PAIRS;
	int status = reap(spawn(fast_path_semops, fp));

	if (!tap_is(status, 0, "%s.fast_path_semops.done", mode) &&
	    fp->err)
		tap_diag("  bpf_enable_stats: %s", strerror(fp->err));
	tap_diag("%s: %lld non-blocking semop()s, BPF programs ran %llu times",
		 mode, ops, fp->runs);
	if (!strcmp(mode, "kprobe"))
		tap_ok(status == 0 && fp->runs >= (unsigned long long)ops,
		       "%s.fast_path_runs", mode);
	else
		tap_ok(status == 0 && fp->runs < (unsigned long long)ops / 10,
		       "%s.fast_path_runs", mode);
	munmap(fp, 4096);
}

/*
 * A timeout's -EAGAIN, released by fentry mode's timer while the
 * sleeper lives, not at its exit: after the timeout the child spins in
 * user space (running, never leaving the CPU by choice) or sleeps
 * outside semop(), then makes a segment. The sem_wake comes before that
 * shm_create; in the other modes it is told at the call's end anyway.
 */
static int semop_timeout_id;

/* after the timeout: spin, sleep, or succeed in a semtimedop() (the
 * same system call, returning 0 now) and then spin */
enum after_timeout { AFTER_NAP, AFTER_SPIN, AFTER_RETRY_SPIN };

static struct {
	const char *name;
	enum after_timeout how;
	pid_t pid;
} timer_release[] = { { "spin", AFTER_SPIN, 0 }, { "sleep", AFTER_NAP, 0 },
		      { "retry_spin", AFTER_RETRY_SPIN, 0 } };

static int time_out_then_shmget(void *arg)
{
	struct sembuf dec = { 0, -1, 0 }, up1 = { 1, 1, 0 }, down1 = { 1, -1, 0 };
	struct timespec ts = { .tv_nsec = 100000000 };
	struct timespec nap = { .tv_nsec = 200000000 };
	enum after_timeout how = *(enum after_timeout *)arg;
	int shm;

	if (semtimedop(semop_timeout_id, &dec, 1, &ts) != -1 ||
	    errno != EAGAIN)
		return 1;
	if (how == AFTER_RETRY_SPIN &&
	    (semtimedop(semop_timeout_id, &up1, 1, &ts) ||
	     semtimedop(semop_timeout_id, &down1, 1, &ts)))
		return 3;
	if (how != AFTER_NAP) {
		uint64_t end = mono_ms() + 200;

		while (mono_ms() < end)
			;
	} else {
		while (nanosleep(&nap, &nap) && errno == EINTR)
			;
	}
	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (shm < 0 || shmctl(shm, IPC_RMID, NULL))
		return 2;
	return 0;
}

static void drive_timer_release(void)
{
	size_t i;

	semop_timeout_id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	for (i = 0; i < sizeof(timer_release) / sizeof(*timer_release); i++) {
		timer_release[i].pid = spawn(time_out_then_shmget,
					     &timer_release[i].how);
		tap_is(reap(timer_release[i].pid), 0,
		       "%s.timer_release.%s.timed_out_then_shmget", mode,
		       timer_release[i].name);
	}
	semctl(semop_timeout_id, 0, IPC_RMID);
}

/*
 * Sleepers the queue walk must find: a complex operation of three
 * blocked on its third, a complex one first in the set's queue and a
 * single operation queued behind it (on the set's list, not its
 * semaphore's), a timeout cut short by a signal; then semop()s that do
 * not block, poll/select/epoll sleeps, and the one asleep before start.
 */
static void drive_sem_sleeps(void)
{
	struct sembuf three[3] = { { 3, 0, 0 }, { 2, 1, 0 }, { 0, -1, 0 } };
	struct sembuf first[2] = { { 0, -1, 0 }, { 1, -1, 0 } };
	struct sembuf behind = { 1, -1, 0 }, take2 = { 2, -2, 0 };
	struct sembuf post0 = { 0, 1, 0 }, post1 = { 1, 1, 0 };
	struct sembuf both[2] = { { 0, 1, 0 }, { 1, 1, 0 } };
	pid_t pid, c;
	int id;

	begin();
	id = semget(IPC_PRIVATE, 4, IPC_CREAT | 0600);

	pid = spawn_semop(id, three, 3, -1);
	tap_ok(wait_in_semop(pid), "%s.sem_complex3.sleeper_sleeps", mode);
	let_it_sleep();
	semop(id, &post0, 1);
	tap_is(reap(pid), 0, "%s.sem_complex3.semop_done", mode);
	expect_sem("sem_complex3", pid, id, 3, 2, 0, -1, false, 0);

	/* sem 2 is 1 now, sem 0 and 1 are 0 */
	c = spawn_semop(id, first, 2, -1);
	tap_ok(wait_in_semop(c), "%s.sem_complex_first.sleeper_sleeps", mode);
	pid = spawn_semop(id, &behind, 1, -1);
	tap_ok(wait_in_semop(pid), "%s.sem_behind_complex.sleeper_sleeps",
	       mode);
	let_it_sleep();
	semop(id, &post1, 1);		/* the one behind can go, not the first */
	tap_is(reap(pid), 0, "%s.sem_behind_complex.semop_done", mode);
	expect_sem("sem_behind_complex", pid, id, 1, 0, 1, -1, false, 0);
	semop(id, both, 2);
	tap_is(reap(c), 0, "%s.sem_complex_first.semop_done", mode);
	expect_sem("sem_complex_first", c, id, 2, 0, 0, -1, false, 0);

	pid = spawn(semtimedop_until_signal, &id);
	tap_ok(wait_in_semop(pid), "%s.sem_signal_timed.sleeper_sleeps", mode);
	let_it_sleep();
	kill(pid, SIGUSR1);
	tap_is(reap(pid), EINTR, "%s.sem_signal_timed.semop_eintr", mode);
	expect_sem("sem_signal_timed", pid, id, 1, 0, 0, -1, true, EINTR);

	pid = spawn_semop(id, &take2, 1, -1);
	tap_ok(wait_in_semop(pid), "%s.sem_woken_by_nonblocking.sleeper_sleeps",
	       mode);
	let_it_sleep();
	nonblocking_pid = spawn(nonblocking_semops, &id);
	tap_is(reap(nonblocking_pid), 0, "%s.nonblocking_semops.done", mode);
	tap_is(reap(pid), 0, "%s.sem_woken_by_nonblocking.semop_done", mode);
	expect_sem("sem_woken_by_nonblocking", pid, id, 1, 0, 2, -2, false, 0);

	polling_pid = spawn(poll_select_epoll, NULL);
	tap_is(reap(polling_pid), 0, "%s.poll_select_epoll.done", mode);

	tap_ok(early.asleep, "%s.early_sleeper.sleeps_before_start", mode);
	tap_is(reap(spawn(post_early, NULL)), 0, "%s.early_sleeper.posted",
	       mode);
	tap_is(reap(early.pid), 0, "%s.early_sleeper.semop_done", mode);
	semctl(id, 0, IPC_RMID);

	drive_stopped_retry();
	drive_timer_release();
	drive_fast_path_runs();
}

/* Each call blocked and woke once, the first with -EINTR: every mode. */
static void check_stopped_retry(const struct ipcwatch_run *r)
{
	long long tid = retry.tid;
	int w0 = find_at(r, "sem_wake", 0, "tid", tid, NULL);
	int w1 = find_at(r, "sem_wake", 1, "tid", tid, NULL);
	int b1 = find_at(r, "sem_block", 1, "tid", tid, NULL);

	tap_is(count_events(r, "sem_block", "tid", tid), 2,
	       "%s.stopped_retry.two_blocks", mode);
	tap_is(count_events(r, "sem_wake", "tid", tid), 2,
	       "%s.stopped_retry.two_wakes", mode);
	tap_is(w0 < 0 ? -999999 : jint(r->events[w0], "err"), EINTR,
	       "%s.stopped_retry.first_wake_eintr", mode);
	tap_is(w1 < 0 ? -999999 : jint(r->events[w1], "err"), 0,
	       "%s.stopped_retry.second_wake_ok", mode);
	/* the -EINTR is the first call's, told before the retry blocks */
	if (!tap_ok(w0 >= 0 && b1 > w0, "%s.stopped_retry.eintr_before_retry",
		    mode))
		tap_diag("  first sem_wake at %d, second sem_block at %d", w0,
			 b1);
}

static void check_timer_release(const struct ipcwatch_run *r)
{
	size_t i;

	for (i = 0; i < sizeof(timer_release) / sizeof(*timer_release); i++) {
		const char *name = timer_release[i].name;
		long long pid = timer_release[i].pid;
		int wake = find_at(r, "sem_wake", 0, "pid", pid, NULL);
		int next = find_at(r, "shm_create", 0, "pid", pid, NULL);
		json_object *w = wake < 0 ? NULL : r->events[wake];

		tap_is(count_events(r, "sem_wake", "pid", pid), 1,
		       "%s.timer_release.%s.one_wake", mode, name);
		tap_is(jint(w, "err"), EAGAIN,
		       "%s.timer_release.%s.wake_eagain", mode, name);
		/* kprobe mode sees only __do_semtimedop()'s return */
		if (strcmp(mode, "kprobe"))
			tap_is(jint(w, "timed_out"), 1,
			       "%s.timer_release.%s.timed_out", mode, name);
		else
			tap_ok(w && !json_object_object_get_ex(w, "timed_out",
							       NULL),
			       "%s.timer_release.%s.timed_out_unknown", mode,
			       name);
		if (!tap_ok(wake >= 0 && next > wake,
			    "%s.timer_release.%s.before_next_event", mode,
			    name))
			tap_diag("  sem_wake at %d, shm_create at %d", wake,
				 next);
	}
}

static void check_sem_sleeps(const struct ipcwatch_run *r)
{
	int wakes = count_events(r, "sem_wake", "pid", early.pid);

	tap_is(count_events(r, "sem_block", "pid", early.pid), 0,
	       "%s.early_sleeper.no_block", mode);
	if (!strcmp(mode, "tracepoint")) {
		tap_ok(wakes == 1 &&
		       jint(find(r, "sem_wake", 0, "pid",
				 (long long)early.pid, NULL), "slept_ns") == 0,
		       "%s.early_sleeper.wake_without_block", mode);
	} else {
		tap_is(wakes, 0, "%s.early_sleeper.no_wake", mode);
	}
	tap_is(count_events(r, "sem_block", "pid", nonblocking_pid) +
	       count_events(r, "sem_wake", "pid", nonblocking_pid), 0,
	       "%s.nonblocking_semops.no_sem_events", mode);
	/* every wake-up of the suite was a semop() of ours */
	tap_is(count_events(r, "sem_block", "pid", getpid()) +
	       count_events(r, "sem_wake", "pid", getpid()), 0,
	       "%s.waker.no_sem_events", mode);
	tap_is(count_events(r, "sem_block", "pid", polling_pid) +
	       count_events(r, "sem_wake", "pid", polling_pid), 0,
	       "%s.poll_select_epoll.no_sem_events", mode);
	check_stopped_retry(r);
	check_timer_release(r);
}

/* kernel.sem of the caller's namespace: SEMMSL SEMMNS SEMOPM SEMMNI */
static void sem_ctl_get(int v[4])
{
	FILE *f = fopen("/proc/sys/kernel/sem", "r");

	if (!f || fscanf(f, "%d %d %d %d", &v[0], &v[1], &v[2], &v[3]) != 4)
		exit(2);
	fclose(f);
}

static void sem_ctl_set(int msl, int mns, int mni)
{
	char buf[64];
	int v[4];

	sem_ctl_get(v);
	snprintf(buf, sizeof(buf), "%d %d %d %d", msl, mns, v[2], mni);
	if (sysctl_set("sem", buf))
		exit(2);
}

/* semget() with a fresh key (or @key), its outcome recorded. */
static struct semc_exp *sem_create(int key, int nsems, int flags,
				   const char *reason, int used_sems)
{
	struct semc_exp *x = &semcs[nsemcs++];
	int v[4];

	sem_ctl_get(v);
	x->key = key ? key : next_key++;
	x->pid = getpid();
	x->ns = ipc_ns_inum();
	x->nsems = nsems;
	x->reason = reason;
	x->used_sems = used_sems;
	x->semmsl = v[0];
	x->semmns = v[1];
	x->semmni = v[3];
	x->id = semget(x->key, nsems, flags | 0600);
	x->err = x->id < 0 ? errno : 0;
	return x;
}

static void drive_sem_creates(void)
{
	int key;

	begin();
	sem_create(0, 8, IPC_CREAT, "ok", 0);
	sem_create(0, -1, IPC_CREAT, "bad_nsems", -1);
	sem_create(0, 0, IPC_CREAT, "no_nsems", 8);
	key = sem_create(0, 2, IPC_CREAT, "ok", 8)->key;
	sem_create(key, 5, 0, "existing_fewer", 10)->existing_nsems = 2;

	begin();
	sem_ctl_set(4, 32000, 128);
	sem_create(0, 5, IPC_CREAT, "over_semmsl", -1);

	begin();
	sem_ctl_set(250, 10, 128);
	sem_create(0, 8, IPC_CREAT, "ok", 0);
	sem_create(0, 3, IPC_CREAT, "over_semmns", 8);

	begin();
	sem_ctl_set(250, 32000, 1);
	sem_create(0, 1, IPC_CREAT, "ok", 0);
	sem_create(0, 1, IPC_CREAT, "no_ids", 1);
}

/* Fail the nth allocation of semget(): nomem among the reasons. */
static void drive_sem_injected_failures(void)
{
	int fd = open("/proc/thread-self/fail-nth", O_WRONLY), n;
	char nth[16];

	if (fd < 0)
		return;
	begin();
	for (n = 1; n < 100 && nsemcs < 160; n++) {
		struct semc_exp *x = &semcs[nsemcs++];
		int v[4];

		sem_ctl_get(v);
		x->key = next_key++;
		x->pid = getpid();
		x->ns = ipc_ns_inum();
		x->nsems = 2;
		x->used_sems = -1;
		x->semmsl = v[0];
		x->semmns = v[1];
		x->semmni = v[3];
		snprintf(nth, sizeof(nth), "%d", n);
		if (write(fd, nth, strlen(nth)) < 0)
			break;
		x->id = semget(x->key, 2, IPC_CREAT | 0600);
		x->err = x->id < 0 ? errno : 0;
		if (write(fd, "0", 1) < 0)
			break;
		if (x->id >= 0) {
			x->reason = "ok";
			break;
		}
	}
	close(fd);
}

/* A task asleep in semop() on the operations it is given. */
struct sem_sleeper {
	int id;
	unsigned int nsops;
	struct sembuf sops[2];
	pid_t pid;
};

static int sleep_on_ops(void *arg)
{
	struct sem_sleeper *s = arg;

	return semop(s->id, s->sops, s->nsops) ? errno : 0;
}

/*
 * Sleepers on set @id, then its IPC_RMID: each asleep first, each
 * reaped with EIDRM after.
 */
static void rmid_with_sleepers(int id, struct sem_sleeper *s, int n,
			       const char *check)
{
	bool asleep = true, eidrm = true;
	int i, r;

	for (i = 0; i < n; i++) {
		s[i].id = id;
		s[i].pid = spawn(sleep_on_ops, &s[i]);
		asleep &= wait_in_semop(s[i].pid);
	}
	tap_ok(asleep, "%s.%s.sleepers_sleep", mode, check);
	semctl(id, 0, IPC_RMID);
	for (i = 0; i < n; i++) {
		r = reap(s[i].pid);
		if (r != EIDRM) {
			tap_diag("  sleeper %d got %d", i, r);
			eidrm = false;
		}
	}
	tap_ok(eidrm, "%s.%s.sleepers_eidrm", mode, check);
}

static int undo_and_exit(void *arg)
{
	struct sembuf up = { 1, 1, SEM_UNDO };

	return semop(*(int *)arg, &up, 1) ? errno : 0;
}

static int sem_in_new_ns(void *arg)
{
	int *fds = arg, id;
	unsigned long ns;

	if (unshare(CLONE_NEWIPC))
		return 1;
	ns = ipc_ns_inum();
	id = semget(0x5e5, 2, IPC_CREAT | 0600);
	if (write(fds[1], &ns, sizeof(ns)) != sizeof(ns) ||
	    write(fds[1], &id, sizeof(id)) != sizeof(id))
		return 1;
	return 0;
}

static void drive_sem_lifecycle(void)
{
	struct sembuf up_undo = { 1, 1, SEM_UNDO }, up = { 1, 1, 0 };
	/* semaphore 0 is 0, 1 is 1, 2 is 0: each sleeper waits */
	struct sem_sleeper single[2] = {
		{ .nsops = 1, .sops = { { 0, -1, 0 } } },	/* sems[0] alter */
		{ .nsops = 1, .sops = { { 1, 0, 0 } } },	/* sems[1] const */
	};
	/* complex ones: the set's lists (and they merge single decrements
	 * there, so they get a set of their own) */
	struct sem_sleeper complex[2] = {
		{ .nsops = 2, .sops = { { 0, -1, 0 }, { 2, -1, 0 } } },
		{ .nsops = 2, .sops = { { 2, 0, 0 }, { 1, 0, 0 } } },
	};
	unsigned long ns;
	int id, fds[2];
	pid_t pid;

	ns = begin();
	id = semget(0x5e4, 3, IPC_CREAT | 0600);
	/* sleepers, one undo record of ours: counted in tracepoint mode */
	semop(id, &up_undo, 1);
	rmid_with_sleepers(id, single, 2, "sem_destroy_rmid");
	semds[nsemds++] = (struct semd_exp){ "sem_destroy_rmid", ns, getpid(),
		id, 0x5e4, 3, 2, 1, "rmid" };
	id = semget(0x5e6, 3, IPC_CREAT | 0600);
	semop(id, &up, 1);
	rmid_with_sleepers(id, complex, 2, "sem_destroy_complex");
	semds[nsemds++] = (struct semd_exp){ "sem_destroy_complex", ns,
		getpid(), id, 0x5e6, 3, 2, 0, "rmid" };

	id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	pid = spawn(undo_and_exit, &id);
	tap_is(reap(pid), 0, "%s.sem_undo.semop_done", mode);
	sem_undone.ns = ns;
	sem_undone.pid = pid;
	sem_undone.id = id;

	if (pipe(fds))
		exit(2);
	pid = spawn(sem_in_new_ns, fds);
	reap(pid);
	if (read(fds[0], &ns, sizeof(ns)) == sizeof(ns) &&
	    read(fds[0], &id, sizeof(id)) == sizeof(id)) {
		semds[nsemds++] = (struct semd_exp){ "sem_destroy_ns_exit",
			ns, 0, id, 0x5e5, 2, 0, 0, "ns_exit" };
		sem_torn_down_ns = ns;
	}
	close(fds[0]);
	close(fds[1]);
}

/* ---- checks ----------------------------------------------------------------- */

static void check_creates(const struct ipcwatch_run *r)
{
	int i, nomem = 0, file_setup = 0, injected = 0;

	for (i = 0; i < ncreates; i++) {
		const struct create_exp *x = &creates[i];
		json_object *ev = find(r, "shm_create", 0, "key",
				       (long long)x->key, "err",
				       (long long)x->err, NULL);
		char name[48];

		if (x->reason)
			snprintf(name, sizeof(name), "%s.create_%s_%x", mode,
				 x->reason, x->key);
		else
			snprintf(name, sizeof(name), "%s.create_injected_%x",
				 mode, x->key);
		if (!tap_is(ev && !find(r, "shm_create", 1, "key",
					   (long long)x->key, "err",
					   (long long)x->err, NULL), 1,
			    "%s.one_event", name))
			continue;
		tap_is(jint(ev, "err"), x->err, "%s.err_is_callers", name);
		tap_is(jint(ev, "id"), x->id, "%s.id", name);
		tap_is(jint(ev, "pid"), x->pid, "%s.pid", name);
		tap_is_u(juint(ev, "ipcns"), x->ns, "%s.ipcns", name);
		tap_is_u(juint(ev, "size"), x->size, "%s.size", name);
		if (x->reason && !tap_ok(!strcmp(jstr(ev, "reason"), x->reason),
					 "%s.reason", name))
			tap_diag("  reason %s", jstr(ev, "reason"));
		if (x->existing_size)
			tap_is_u(juint(ev, "existing_size"), x->existing_size,
				 "%s.existing_size", name);
		if (x->shm_tot >= 0)
			tap_is_u(juint(ev, "shm_tot"), x->shm_tot,
				 "%s.shm_tot", name);
		if (!x->reason) {
			injected++;
			nomem += !strcmp(jstr(ev, "reason"), "nomem");
			file_setup += !strcmp(jstr(ev, "reason"), "file_setup");
		}
	}
	/* Debian's kernel has no fault injection to drive these */
	if (on_kernel("stock"))
		return;
	tap_ok(injected > 0 && nomem > 0 && file_setup > 0,
	       "%s.create_injected_reasons_nomem_and_file_setup", mode);
	if (!injected || !nomem || !file_setup)
		tap_diag("  %d injected: %d nomem, %d file_setup", injected,
			 nomem, file_setup);
}

static void check_shmat(const struct ipcwatch_run *r)
{
	json_object *ok = find(r, "shmat", 0, "ipcns", (long long)shmat_ns,
			       "err", 0LL, NULL);
	json_object *wrap = find(r, "shmat", 0, "ipcns", (long long)shmat_ns,
				 "err", (long long)EINVAL, NULL);
	json_object *att, *det;

	tap_is(count_events(r, "shmat", "ipcns", shmat_ns), 2,
	       "%s.shmat_two_events", mode);
	tap_is(jint(ok, "id"), shmat_id, "%s.shmat_ok.id", mode);
	tap_is(jint(ok, "size"), 2 * page_size, "%s.shmat_ok.size", mode);
	tap_is(jint(ok, "addr_wrap"), 0, "%s.shmat_ok.addr_wrap", mode);
	tap_ok(!strcmp(jstr(ok, "reason"), "ok"), "%s.shmat_ok.reason", mode);
	tap_is(jint(wrap, "addr_wrap"), 1, "%s.shmat_wrap.addr_wrap", mode);
	tap_ok(!strcmp(jstr(wrap, "reason"), "addr_wrap"),
	       "%s.shmat_wrap.reason", mode);
	tap_is(jint(wrap, "size"), 2 * page_size, "%s.shmat_wrap.size", mode);
	if (!strcmp(mode, "tracepoint")) {
		/* the kernel's event leaves the addresses to the syscall */
		tap_ok(!json_object_object_get_ex(ok, "raddr", NULL) &&
		       !json_object_object_get_ex(wrap, "addr", NULL),
		       "%s.shmat_no_syscall_fields", mode);
	} else {
		tap_is_u(juint(ok, "raddr"), (unsigned long)attached,
			 "%s.shmat_ok.raddr", mode);
		tap_is(jint(wrap, "raddr"), 0, "%s.shmat_wrap.raddr", mode);
	}

	att = find(r, "shm_attach", 0, "ipcns", (long long)shmat_ns, NULL);
	det = find(r, "shm_detach", 0, "ipcns", (long long)shmat_ns, NULL);
	if (!strcmp(mode, "tracepoint")) {
		tap_is(jint(att, "nattch"), 1, "%s.shm_attach.nattch", mode);
		tap_is(jint(det, "nattch"), 0, "%s.shm_detach.nattch", mode);
	} else {
		/* documented: attach counts are tracepoint-only */
		tap_ok(!att && !det, "%s.no_attach_events_without_tracepoints",
		       mode);
	}
}

static void check_destroys(const struct ipcwatch_run *r)
{
	int i;

	for (i = 0; i < ndestroys; i++) {
		const struct destroy_exp *x = &destroys[i];
		json_object *ev = find(r, "shm_destroy", 0, "ipcns",
				       (long long)x->ns, "id", (long long)x->id,
				       NULL);

		tap_ok(ev != NULL, "%s.%s.reported", mode, x->name);
		if (!tap_ok(!strcmp(jstr(ev, "cause"), x->cause), "%s.%s.cause",
			    mode, x->name))
			tap_diag("  cause %s", jstr(ev, "cause"));
		tap_is(jint(ev, "cpid"), x->cpid, "%s.%s.cpid", mode, x->name);
		tap_is(jint(ev, "size"), x->size, "%s.%s.size", mode, x->name);
		tap_is(jint(ev, "key"), x->key, "%s.%s.key", mode, x->name);
	}
}

/* The segment outlived its creator: tracepoint mode says so. */
static void check_orphan(const struct ipcwatch_run *r)
{
	json_object *ev = find(r, "shm_orphan", 0, "ipcns",
			       (long long)orphaned.ns, "id",
			       (long long)orphaned.id, NULL);

	if (strcmp(mode, "tracepoint")) {
		tap_ok(!find(r, "shm_orphan", 0, NULL),
		       "%s.no_orphan_events_without_tracepoints", mode);
		return;
	}
	tap_ok(ev != NULL, "%s.shm_orphan.reported", mode);
	tap_is(jint(ev, "pid"), orphaned.pid, "%s.shm_orphan.pid", mode);
	tap_is(jint(ev, "size"), 3 * 4096, "%s.shm_orphan.size", mode);
	tap_is(jint(ev, "nattch"), 0, "%s.shm_orphan.nattch", mode);
}

static void check_shmctl(const struct ipcwatch_run *r)
{
	json_object *ok = find(r, "shmctl", 0, "ipcns", (long long)shmctl_ns,
			       "cmd", (long long)IPC_STAT, "ret", 0LL, NULL);
	json_object *bad = find(r, "shmctl", 0, "ipcns", (long long)shmctl_ns,
				"ret", (long long)-EINVAL, NULL);

	tap_is(jint(ok, "id"), shmctl_id, "%s.shmctl_stat.id", mode);
	tap_ok(!strcmp(jstr(ok, "cmd_name"), "IPC_STAT"),
	       "%s.shmctl_stat.cmd", mode);
	tap_is(jint(bad, "id"), shmctl_id + 1000, "%s.shmctl_bad_id.id", mode);
	tap_ok(!strcmp(jstr(bad, "errno"), "EINVAL"),
	       "%s.shmctl_bad_id.errno", mode);
}

static void check_sems(const struct ipcwatch_run *r)
{
	int i;

	for (i = 0; i < nsems; i++) {
		const struct sem_exp *x = &sems[i];
		json_object *b = find(r, "sem_block", 0, "pid",
				      (long long)x->pid, NULL);
		json_object *w = find(r, "sem_wake", 0, "pid",
				      (long long)x->pid, NULL);

		tap_is(count_events(r, "sem_block", "pid", x->pid), 1,
		       "%s.%s.one_block", mode, x->name);
		tap_is(jint(b, "id"), x->id, "%s.%s.id", mode, x->name);
		tap_ok(jint(b, "nsops") == x->nsops &&
		       jint(b, "index") == x->index &&
		       jint(b, "sem_num") == x->sem_num &&
		       jint(b, "sem_op") == x->sem_op,
		       "%s.%s.blocking_operation", mode, x->name);
		tap_ok(!strcmp(jstr(b, "counts_as"), x->counts_as),
		       "%s.%s.counts_as", mode, x->name);
		tap_is(jint(b, "timeout"), x->timeout, "%s.%s.timeout", mode,
		       x->name);
		tap_is(count_events(r, "sem_wake", "pid", x->pid), 1,
		       "%s.%s.one_wake", mode, x->name);
		tap_is(jint(w, "err"), x->err, "%s.%s.wake_err", mode, x->name);
		/*
		 * the kernel's sem_wake tells a timeout from IPC_NOWAIT, and
		 * fentry mode from the sleep's own return; kprobe mode sees
		 * only __do_semtimedop()'s
		 */
		if (strcmp(mode, "kprobe"))
			tap_is(jint(w, "timed_out"),
			       x->timeout && x->err == EAGAIN,
			       "%s.%s.timed_out", mode, x->name);
		else
			tap_ok(!json_object_object_get_ex(w, "timed_out", NULL),
			       "%s.%s.timed_out_unknown", mode, x->name);
		if (!tap_ok(jint(w, "slept_ns") > 0, "%s.%s.slept_ns", mode,
			    x->name))
			tap_diag("  %s", json_object_to_json_string(w));
	}
}

static void check_sem_creates(const struct ipcwatch_run *r)
{
	int i, injected = 0, nomem = 0;

	for (i = 0; i < nsemcs; i++) {
		const struct semc_exp *x = &semcs[i];
		json_object *ev = find(r, "sem_create", 0, "key",
				       (long long)x->key, "err",
				       (long long)x->err, NULL);
		char name[48];

		snprintf(name, sizeof(name), "%s.sem_create_%s_%x", mode,
			 x->reason ? x->reason : "injected", x->key);
		if (!tap_is(ev && !find(r, "sem_create", 1, "key",
					   (long long)x->key, "err",
					   (long long)x->err, NULL), 1,
			    "%s.one_event", name))
			continue;
		tap_is(jint(ev, "id"), x->id, "%s.id", name);
		tap_is(jint(ev, "pid"), x->pid, "%s.pid", name);
		tap_is_u(juint(ev, "ipcns"), x->ns, "%s.ipcns", name);
		tap_is(jint(ev, "nsems"), x->nsems, "%s.nsems", name);
		tap_ok(jint(ev, "semmsl") == x->semmsl &&
		       jint(ev, "semmns") == x->semmns &&
		       jint(ev, "semmni") == x->semmni, "%s.limits", name);
		if (x->used_sems >= 0)
			tap_is(jint(ev, "used_sems"), x->used_sems,
			       "%s.used_sems", name);
		if (x->reason && !tap_ok(!strcmp(jstr(ev, "reason"), x->reason),
					 "%s.reason", name))
			tap_diag("  reason %s", jstr(ev, "reason"));
		if (x->existing_nsems)
			tap_is(jint(ev, "existing_nsems"), x->existing_nsems,
			       "%s.existing_nsems", name);
		if (!x->reason) {
			injected++;
			nomem += !strcmp(jstr(ev, "reason"), "nomem");
		}
	}
	/* Debian's kernel has no fault injection to drive these */
	if (on_kernel("stock"))
		return;
	if (!tap_ok(injected > 0 && nomem > 0,
		    "%s.sem_create_injected_nomem", mode))
		tap_diag("  %d injected: %d nomem", injected, nomem);
}

static void check_sem_lifecycle(const struct ipcwatch_run *r)
{
	bool tracepoint = !strcmp(mode, "tracepoint");
	json_object *ev;
	int i;

	for (i = 0; i < nsemds; i++) {
		const struct semd_exp *x = &semds[i];

		ev = find(r, "sem_destroy", 0, "ipcns", (long long)x->ns,
			  "id", (long long)x->id, NULL);
		tap_ok(ev && !find(r, "sem_destroy", 1, "ipcns",
				   (long long)x->ns, "id", (long long)x->id,
				   NULL), "%s.%s.one_event", mode, x->name);
		if (!tap_ok(!strcmp(jstr(ev, "cause"), x->cause),
			    "%s.%s.cause", mode, x->name))
			tap_diag("  cause %s", jstr(ev, "cause"));
		if (x->pid)
			tap_is(jint(ev, "pid"), x->pid, "%s.%s.pid", mode,
			       x->name);
		tap_ok(jint(ev, "key") == x->key &&
		       jint(ev, "nsems") == x->nsems,
		       "%s.%s.key_and_nsems", mode, x->name);
		tap_ok(ev && jint(ev, "cuid") == 0 && jint(ev, "ctime") > 0,
		       "%s.%s.creator", mode, x->name);
		/* documented: only the kernel's event counts them */
		if (tracepoint)
			tap_ok(jint(ev, "waiters") == x->waiters &&
			       jint(ev, "undos") == x->undos,
			       "%s.%s.waiters_and_undos", mode, x->name);
		else
			tap_ok(ev && !json_object_object_get_ex(ev, "waiters",
								NULL) &&
			       !json_object_object_get_ex(ev, "undos", NULL),
			       "%s.%s.counts_unknown", mode, x->name);
	}

	ev = find(r, "sem_undo", 0, "ipcns", (long long)sem_undone.ns,
		  "pid", (long long)sem_undone.pid, NULL);
	if (!tracepoint) {
		tap_ok(!find(r, "sem_undo", 0, NULL),
		       "%s.no_sem_undo_without_tracepoints", mode);
		return;
	}
	tap_ok(ev && !find(r, "sem_undo", 1, "ipcns", (long long)sem_undone.ns,
			   "pid", (long long)sem_undone.pid, NULL),
	       "%s.sem_undo.one_event", mode);
	tap_is(jint(ev, "id"), sem_undone.id, "%s.sem_undo.id", mode);
	tap_ok(jint(ev, "nsems") == 2 && jint(ev, "adjusted") == 1 &&
	       jint(ev, "clamped") == 0 && jint(ev, "gone") == 0,
	       "%s.sem_undo.counts", mode);
}

static void reset_expectations(void)
{
	ncreates = ndestroys = nsems = 0;
	nsemcs = nsemds = 0;
	torn_down_ns = sem_torn_down_ns = 0;
	memset(&sem_undone, 0, sizeof(sem_undone));
}

/*
 * What a mode cannot show is said at start: a record naming each event
 * and why, and one line on stderr. Only fentry mode lacks events here:
 * the attach counts, orphans and SEM_UNDO at exit (tracepoints only).
 */
static void check_unavailable(const struct ipcwatch_run *r)
{
	json_object *u = find(r, "unavailable", 0, NULL), *list, *item;
	bool attach = false, detach = false, orphan = false, undo = false;
	size_t i;

	if (!strcmp(mode, "tracepoint")) {
		tap_ok(!u && !strstr(r->err, "unavailable"),
		       "%s.nothing_unavailable", mode);
		return;
	}
	tap_ok(u && !find(r, "unavailable", 1, NULL),
	       "%s.unavailable_record_once", mode);
	list = NULL;
	if (u && json_object_object_get_ex(u, "unavailable", &list))
		for (i = 0; i < json_object_array_length(list); i++) {
			item = json_object_array_get_idx(list, i);
			attach |= !strcmp(jstr(item, "what"), "shm_attach");
			detach |= !strcmp(jstr(item, "what"), "shm_detach");
			orphan |= !strcmp(jstr(item, "what"), "shm_orphan");
			undo |= !strcmp(jstr(item, "what"), "sem_undo");
		}
	tap_ok(attach && detach, "%s.unavailable_names_attach_counts", mode);
	tap_ok(orphan, "%s.unavailable_names_orphans", mode);
	tap_ok(undo, "%s.unavailable_names_sem_undo", mode);
	tap_ok(list && json_object_array_length(list) == 4,
	       "%s.unavailable_nothing_else", mode);
	tap_ok(strstr(r->err, "unavailable on this kernel: shm_attach") != NULL,
	       "%s.unavailable_line_on_stderr", mode);
}

/*
 * @m is the mode asked for; on Debian's kernel "auto" must pick fentry
 * and say so.
 */
static void test_mode(const char *m)
{
	char mode_arg[32], says[64];
	const char *argv[] = { "ipcwatch", "events", "--json", mode_arg, NULL };
	struct ipcwatch_run r;
	int before = bpf_prog_count();

	mode = strcmp(m, "auto") ? m : "fentry";
	reset_expectations();
	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", m);
	long untraced_ns = semop_pair_ns();

	create_before_start();
	sleep_before_start();
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL), "%s.starts", mode)) {
		tap_diag("  exit %d: %s", r.status, r.err);
		ipcwatch_free(&r);
		kill(early.pid, SIGKILL);
		reap(early.pid);
		return;
	}

	tap_diag("%s: semop up+down %ld ns/op untraced, %ld ns/op watched",
		 mode, untraced_ns, semop_pair_ns());
	drive_creates();
	drive_lsm_denied();
	drive_injected_failures();
	drive_shmat();
	drive_destroys();
	drive_shmctl();
	drive_sems();
	drive_sem_sleeps();
	drive_sem_creates();
	drive_sem_injected_failures();
	drive_sem_lifecycle();
	/* ns teardown runs from a workqueue: wait for what it destroys */
	snprintf(says, sizeof(says), "%s.namespace_teardown_seen", mode);
	if (!torn_down_ns)
		tap_ok(false, "%s", says);
	else
		ipcwatch_wait_record(&r, "shm_destroy", "ipcns",
				     (long long)torn_down_ns, 0, 30, says);
	snprintf(says, sizeof(says), "%s.sem_namespace_teardown_seen", mode);
	if (!sem_torn_down_ns)
		tap_ok(false, "%s", says);
	else
		ipcwatch_wait_record(&r, "sem_destroy", "ipcns",
				     (long long)sem_torn_down_ns, 0, 30, says);
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "%s.exits_cleanly_on_sigint", mode);
	snprintf(says, sizeof(says), "watching in %s mode", mode);
	if (!tap_ok(strstr(r.err, says) != NULL, "%s.%s_says_%s", mode, m,
		    mode))
		tap_diag("  stderr: %s", r.err);
	tap_is(bpf_prog_count(), before, "%s.nothing_left_loaded", mode);
	tap_ok(find(&r, "lost", 0, NULL) == NULL, "%s.nothing_lost", mode);

	check_unavailable(&r);
	check_creates(&r);
	check_shmat(&r);
	check_destroys(&r);
	check_orphan(&r);
	check_shmctl(&r);
	check_sems(&r);
	check_sem_sleeps(&r);
	check_sem_creates(&r);
	check_sem_lifecycle(&r);
	ipcwatch_free(&r);
}

/* The 8191 segments of the wrap case would flood the buffer: --failed. */
static void test_total_wrap(const char *m)
{
	char mode_arg[32];
	const char *argv[] = { "ipcwatch", "events", "--json", "--failed",
			       mode_arg, NULL };
	struct ipcwatch_run r;
	json_object *ev;

	mode = m;
	reset_expectations();
	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", m);
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL),
		    "%s.failed_only.starts", mode))
		{
			ipcwatch_free(&r);
			return;
		}
	drive_total_wrap();
	ipcwatch_stop(&r);
	ev = find(&r, "shm_create", 0, "key", (long long)total_wrap_key, NULL);
	tap_ok(!strcmp(jstr(ev, "reason"), "total_wrap"),
	       "%s.create_total_wrap.reason", mode);
	tap_is(jint(ev, "err"), ENOSPC, "%s.create_total_wrap.err", mode);
	tap_is_u(juint(ev, "shm_tot"), creates[0].shm_tot,
		 "%s.create_total_wrap.shm_tot", mode);
	/* --failed: the 8191 successful creations are not reported */
	tap_is(count_events(&r, "shm_create", NULL, 0), 1,
	       "%s.failed_only.only_the_refusal", mode);
	ipcwatch_free(&r);
}

/*
 * A ring buffer of one page and a stopped reader: most of a flood is
 * lost, and every event is either delivered or counted as lost.
 */
static void test_lost_events(const char *m)
{
	char mode_arg[32], pid_arg[32];
	const char *argv[] = { "ipcwatch", "events", "--json",
			       "--buffer-size=4096", pid_arg, mode_arg, NULL };
	const int generated = 3000;
	struct ipcwatch_run r;
	long long lost = 0;
	int i, delivered, id;

	mode = m;
	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", m);
	snprintf(pid_arg, sizeof(pid_arg), "--pid=%d", getpid());
	begin();
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL), "%s.lost.starts",
		    mode))
		{
			ipcwatch_free(&r);
			return;
		}
	kill(r.pid, SIGSTOP);
	for (i = 0; i < generated; i++) {
		struct shmid_ds ds;

		shmctl(id, IPC_STAT, &ds);
	}
	kill(r.pid, SIGCONT);
	ipcwatch_stop(&r);
	delivered = count_events(&r, "shmctl", NULL, 0);
	for (i = 0; find(&r, "lost", i, NULL); i++)
		lost += jint(find(&r, "lost", i, NULL), "lost");
	tap_diag("%s: %d generated, %d delivered, %lld lost", mode, generated,
		 delivered, lost);
	tap_ok(lost > 0, "%s.lost.some_lost", mode);
	tap_is(delivered + lost, generated, "%s.lost.delivered_plus_lost",
	       mode);
	tap_ok(strstr(r.err, "lost") != NULL, "%s.lost.summary_on_stderr",
	       mode);
}

static void as_nobody(void *arg)
{
	(void)arg;
	if (setgid(65534) || setuid(65534))
		_exit(126);
}

static int make_shm_as_nobody(void *arg)
{
	(void)arg;
	as_nobody(NULL);
	return shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600) < 0;
}

static int make_shm(void *arg)
{
	(void)arg;
	return shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600) < 0;
}

static void test_filters(void)
{
	const char *uid_argv[] = { "ipcwatch", "events", "--json",
				   "--uid=65534", NULL };
	char ns_arg[48], cg_arg[64];
	const char *ns_argv[] = { "ipcwatch", "events", "--json", ns_arg, NULL };
	const char *cg_argv[] = { "ipcwatch", "events", "--json", cg_arg, NULL };
	struct ipcwatch_run r;
	unsigned long ns;
	pid_t nobody, root, inside;
	int fd;

	mode = "filter";
	begin();
	if (ipcwatch_start(&r, uid_argv, NULL, NULL)) {
		nobody = spawn(make_shm_as_nobody, NULL);
		root = spawn(make_shm, NULL);
		reap(nobody);
		reap(root);
		ipcwatch_stop(&r);
		tap_is(count_events(&r, "shm_create", "pid", nobody), 1,
		       "filter.uid_keeps_matching_task");
		tap_is(count_events(&r, NULL, "pid", root), 0,
		       "filter.uid_drops_other_tasks");
	} else {
		tap_ok(false, "filter.uid_starts");
	}
	ipcwatch_free(&r);

	ns = begin();
	snprintf(ns_arg, sizeof(ns_arg), "--ipcns=%lu", ns);
	if (ipcwatch_start(&r, ns_argv, NULL, NULL)) {
		shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		begin();
		shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		ipcwatch_stop(&r);
		tap_is(count_events(&r, "shm_create", NULL, 0), 1,
		       "filter.ipcns_only_that_namespace");
		tap_is(count_events(&r, "shm_create", "ipcns", ns), 1,
		       "filter.ipcns_matches");
	} else {
		tap_ok(false, "filter.ipcns_starts");
	}
	ipcwatch_free(&r);

	mkdir("/sys/fs/cgroup/ipcwatch-test", 0755);
	snprintf(cg_arg, sizeof(cg_arg), "--cgroup=/sys/fs/cgroup/ipcwatch-test");
	if (ipcwatch_start(&r, cg_argv, NULL, NULL)) {
		int go[2];
		char pidbuf[16];

		if (pipe(go))
			exit(2);
		inside = fork();
		if (inside == 0) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			_exit(make_shm(NULL));
		}
		fd = open("/sys/fs/cgroup/ipcwatch-test/cgroup.procs", O_WRONLY);
		snprintf(pidbuf, sizeof(pidbuf), "%d", inside);
		if (fd < 0 || write(fd, pidbuf, strlen(pidbuf)) < 0)
			tap_diag("cannot move %d into the cgroup", inside);
		close(fd);
		if (write(go[1], "x", 1) != 1)
			exit(2);
		close(go[0]);
		close(go[1]);
		root = spawn(make_shm, NULL);
		reap(inside);
		reap(root);
		ipcwatch_stop(&r);
		tap_is(count_events(&r, "shm_create", "pid", inside), 1,
		       "filter.cgroup_keeps_task_inside");
		tap_is(count_events(&r, NULL, "pid", root), 0,
		       "filter.cgroup_drops_task_outside");
	} else {
		tap_ok(false, "filter.cgroup_starts");
	}
	ipcwatch_free(&r);
	rmdir("/sys/fs/cgroup/ipcwatch-test");
}

#define EVIL_COMM "\x1b[2Jevil\x7f\xff"

/* Whether what a running ipcwatch printed has @needle, within @seconds. */
static bool wait_in_output(const struct ipcwatch_run *r, const char *needle,
			   int seconds)
{
	static char buf[1 << 16];
	int i;

	for (i = 0; i < seconds * 20; i++) {
		FILE *f = fopen(r->out_path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, needle))
			return true;
		usleep(50000);
	}
	tap_diag("  waited %d s for '%s' from ipcwatch", seconds, needle);
	return false;
}

static int make_shm_named_evil(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, EVIL_COMM, 0, 0, 0);
	return make_shm(NULL);
}

/*
 * A command name is whatever its owner chose: no terminal escape may
 * reach the screen, in text or in JSON, and JSON still decodes to it.
 */
static void test_escaped_comm(void)
{
	const char *text_argv[] = { "ipcwatch", "events", NULL };
	const char *json_argv[] = { "ipcwatch", "events", "--json", NULL };
	struct ipcwatch_run text, json;
	bool text_up, json_up;
	pid_t pid;

	mode = "escaped_comm";
	begin();
	text_up = ipcwatch_start(&text, text_argv, NULL, NULL);
	json_up = ipcwatch_start(&json, json_argv, NULL, NULL);
	tap_ok(text_up && json_up, "escaped_comm.starts");
	pid = spawn(make_shm_named_evil, NULL);
	tap_is(reap(pid), 0, "escaped_comm.created");
	if (json_up)
		ipcwatch_wait_record(&json, "shm_create", "pid", pid, 0, 30,
				     "escaped_comm.json_record_came");
	if (text_up)
		tap_ok(wait_in_output(&text, "evil", 30),
		       "escaped_comm.text_line_came");
	ipcwatch_stop(&json);
	ipcwatch_stop(&text);
	tap_ok(text.out && strstr(text.out, "\\x1b[2Jevil\\x7f\\xff"),
	       "escaped_comm.text_escaped");
	tap_ok(text.out && !strchr(text.out, '\x1b') && !strchr(text.out, '\x7f'),
	       "escaped_comm.text_no_control_bytes");
	tap_ok(json.out &&
	       strstr(json.out, "\"\\u001b[2Jevil\\u007f\\\\xff\""),
	       "escaped_comm.json_escaped");
	tap_ok(json.out && !strchr(json.out, '\x1b'),
	       "escaped_comm.json_no_control_bytes");
	tap_str(jstr(find_event(&json, "shm_create", "pid", pid, 0), "comm"),
		"\x1b[2Jevil\x7f\\xff", "escaped_comm.json_decodes");
	ipcwatch_free(&text);
	ipcwatch_free(&json);
}

/* In a private mount namespace, hide the kernel's BTF. */
static void without_btf(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("/dev/null", "/sys/kernel/btf/vmlinux", NULL, MS_BIND, NULL))
		_exit(126);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Bad input: one line naming the problem, non-zero exit, nothing loaded. */
static void test_bad_input(void)
{
	static const struct {
		const char *name;
		const char *argv[6];
		run_setup_fn setup;
		int status;
		const char *says;
	} cases[] = {
		{ "unknown_option", { "ipcwatch", "events", "--bogus" }, NULL,
		  2, "unrecognized option '--bogus'" },
		{ "malformed_pid", { "ipcwatch", "events", "-p", "12x" }, NULL,
		  2, "invalid PID '12x'" },
		{ "malformed_uid", { "ipcwatch", "events", "--uid=-1" }, NULL,
		  2, "invalid UID '-1'" },
		{ "bad_mode", { "ipcwatch", "events", "--mode=uprobe" }, NULL,
		  2, "invalid mode 'uprobe' (tracepoint, fentry, kprobe or auto)" },
		{ "bad_buffer", { "ipcwatch", "events", "--buffer-size=3000" },
		  NULL, 1, "must be a power of 2" },
		{ "unreadable_cgroup",
		  { "ipcwatch", "events", "--cgroup=/sys/fs/cgroup/nope" },
		  NULL, 1, "cannot open cgroup /sys/fs/cgroup/nope" },
		{ "bpf_not_permitted", { "ipcwatch", "events" }, as_nobody, 1,
		  "BPF not permitted" },
		{ "no_btf", { "ipcwatch", "events" }, without_btf, 1,
		  "this kernel has no BTF" },
		{ "unknown_command", { "ipcwatch", "frobnicate" }, NULL, 2,
		  "unknown command 'frobnicate'" },
	};
	int before = bpf_prog_count();
	size_t i;

	mode = "bad_input";
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct ipcwatch_run r;

		ipcwatch_exec(&r, cases[i].argv, cases[i].setup, NULL);
		tap_is(r.status, cases[i].status, "bad_input.%s.exit_status",
		       cases[i].name);
		if (!tap_ok(strstr(r.err, cases[i].says) &&
			    count_lines(r.err) == 1,
			    "bad_input.%s.one_line", cases[i].name))
			tap_diag("  stderr: %s", r.err);
		ipcwatch_free(&r);
	}
	tap_is(bpf_prog_count(), before, "bad_input.nothing_left_loaded");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	/* failslab: fail where asked, quietly */
	{
		int fd = open("/sys/kernel/debug/failslab/ignore-gfp-wait",
			      O_WRONLY);

		if (fd >= 0 && write(fd, "N", 1) < 0)
			tap_diag("failslab setup failed");
		close(fd);
		fd = open("/sys/kernel/debug/failslab/verbose", O_WRONLY);
		if (fd >= 0 && write(fd, "0", 1) < 0)
			tap_diag("failslab setup failed");
		close(fd);
	}

	if (on_kernel("stock")) {
		/* no ipc tracepoints: auto must find the fentry hooks */
		test_mode("auto");
		test_total_wrap("fentry");
		test_lost_events("fentry");
	} else {
		test_mode("tracepoint");
		test_mode("fentry");
		test_mode("kprobe");
		test_total_wrap("tracepoint");
		test_total_wrap("fentry");
		test_lost_events("tracepoint");
		test_lost_events("fentry");
		test_lost_events("kprobe");
	}
	test_filters();
	test_escaped_comm();
	test_bad_input();
	return tap_done();
}
