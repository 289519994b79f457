// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch top, end to end: a scripted workload runs while top watches;
 * its last JSON refresh must equal the ground truth read here from
 * /proc/sysvipc/shm and semctl(). Then the terminal UI, driven through
 * a pseudo-terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_top";

static const char *mode;
static pid_t kept[16];		/* workload tasks that stay alive */
static int nkept;

/* ---- ground truth, read independently of ipcwatch ----------------------- */

struct truth_seg {
	int key, id;
	unsigned int mode;
	unsigned long size, nattch;
	int cpid;
	unsigned int uid;
};

static int read_truth(struct truth_seg *segs, int max)
{
	FILE *f = fopen("/proc/sysvipc/shm", "r");
	char line[512];
	int n = 0;

	if (!f || !fgets(line, sizeof(line), f))
		exit(2);
	while (n < max && fgets(line, sizeof(line), f)) {
		struct truth_seg *s = &segs[n];
		int lpid;

		if (sscanf(line, "%d %d %o %lu %d %d %lu %u", &s->key, &s->id,
			   &s->mode, &s->size, &s->cpid, &lpid, &s->nattch,
			   &s->uid) == 8)
			n++;
	}
	fclose(f);
	return n;
}

static json_object *by_id(json_object *doc, const char *list, int id)
{
	json_object *arr, *o;
	size_t i;

	if (!json_object_object_get_ex(doc, list, &arr))
		return NULL;
	for (i = 0; i < json_object_array_length(arr); i++) {
		o = json_object_array_get_idx(arr, i);
		if (jint(o, "id") == id)
			return o;
	}
	return NULL;
}

static size_t list_len(json_object *doc, const char *list)
{
	json_object *arr;

	if (!json_object_object_get_ex(doc, list, &arr))
		return 0;
	return json_object_array_length(arr);
}

/* ---- the workload --------------------------------------------------------- */

static void named(const char *comm)
{
	prctl(PR_SET_NAME, comm, 0, 0, 0);
}

/* A task that attaches @id and stays until killed. */
/* A process named @comm attached to @id; returns once it is attached. */
static pid_t attacher(int id, const char *comm)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		named(comm);
		if (shmat(id, NULL, 0) == (void *)-1)
			_exit(1);
		if (write(fds[1], "a", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	kept[nkept++] = pid;
	if (pid < 0 || read(fds[0], &c, 1) != 1) {
		fprintf(stderr, "# attacher %s: shmat failed\n", comm);
		exit(2);
	}
	close(fds[0]);
	return pid;
}

struct workload {
	int seg_buffers;	/* root, attached twice, SHM_LOCKed */
	int seg_orphan;		/* uid 1000, creator gone, nothing attached */
	int seg_kept;		/* creator gone, still attached */
	int seg_dest;		/* IPC_RMID while attached */
	unsigned long orphan_size;
	int semset;
	pid_t w_simple, w_zero, w_complex;
	pid_t orphan_creator;
};

/* As uid 1000: creates a segment and exits, leaving an orphan. */
static int make_orphan(void *arg)
{
	int *fds = arg, id;

	named("creator-b");
	if (setgid(1000) || setuid(1000))
		return 1;
	id = shmget(0xb0b, 64 * 1024, IPC_CREAT | 0600);
	return write(fds[1], &id, sizeof(id)) != sizeof(id);
}

/* Creates a segment, leaves it attached by a child, and exits. */
static int make_kept(void *arg)
{
	int *fds = arg, id;
	pid_t holder;

	named("creator-d");
	id = shmget(0xd0d, 3 * 4096, IPC_CREAT | 0600);
	holder = attacher(id, "holder-d");
	return write(fds[1], &id, sizeof(id)) != sizeof(id) ||
	       write(fds[1], &holder, sizeof(holder)) != sizeof(holder);
}

static void run_workload(struct workload *w)
{
	union semun arg;
	unsigned short vals[3] = { 0, 1, 0 };
	struct sembuf simple = { 0, -1, 0 };
	struct sembuf zero = { 1, 0, 0 };
	struct sembuf complex[2] = { { 2, -1, 0 }, { 0, -1, 0 } };
	int fds[2], kept_id = -1;
	pid_t holder = 0;
	void *addr;

	named("creator-a");
	w->seg_buffers = shmget(0xa11c, 1 << 20, IPC_CREAT | 0640);
	attacher(w->seg_buffers, "backend-1");
	attacher(w->seg_buffers, "backend-2");
	shmctl(w->seg_buffers, SHM_LOCK, NULL);

	/* the orphan: its creator's pid and name are gone with it */
	w->orphan_size = 64 * 1024;
	if (pipe(fds))
		exit(2);
	w->orphan_creator = spawn(make_orphan, fds);
	reap(w->orphan_creator);
	if (read(fds[0], &w->seg_orphan, sizeof(int)) != sizeof(int))
		exit(2);
	close(fds[0]);
	close(fds[1]);

	if (pipe(fds))
		exit(2);
	reap(spawn(make_kept, fds));
	if (read(fds[0], &kept_id, sizeof(kept_id)) != sizeof(kept_id) ||
	    read(fds[0], &holder, sizeof(holder)) != sizeof(holder))
		exit(2);
	close(fds[0]);
	close(fds[1]);
	w->seg_kept = kept_id;
	/* not our child, but killed with the rest at the end */
	kept[nkept++] = holder;

	w->seg_dest = shmget(0xde57, 8192, IPC_CREAT | 0600);
	addr = shmat(w->seg_dest, NULL, 0);
	shmctl(w->seg_dest, IPC_RMID, NULL);
	(void)addr;	/* stays attached: marked dest, not freed */

	/* a refusal for the recent list */
	shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600);

	w->semset = semget(0x5e4, 3, IPC_CREAT | 0600);
	arg.array = vals;
	semctl(w->semset, 0, SETALL, arg);
	w->w_simple = spawn_semop(w->semset, &simple, 1, -1);
	w->w_zero = spawn_semop(w->semset, &zero, 1, -1);
	w->w_complex = spawn_semop(w->semset, complex, 2, -1);
	tap_ok(wait_in_semop(w->w_simple),
	       "%s.workload.simple_waiter_sleeps", mode);
	tap_ok(wait_in_semop(w->w_zero),
	       "%s.workload.zero_waiter_sleeps", mode);
	tap_ok(wait_in_semop(w->w_complex),
	       "%s.workload.complex_waiter_sleeps", mode);
	kept[nkept++] = w->w_simple;
	kept[nkept++] = w->w_zero;
	kept[nkept++] = w->w_complex;
}

static void stop_workload(void)
{
	int i;

	for (i = 0; i < nkept; i++) {
		kill(kept[i], SIGKILL);
		waitpid(kept[i], NULL, 0);
	}
	nkept = 0;
}

/* ---- checks ----------------------------------------------------------------- */

static void check_against_truth(json_object *doc, const struct workload *w)
{
	struct truth_seg t[64];
	struct shm_info info;
	json_object *o, *sems, *waiters, *s, *wt;
	int i, n = read_truth(t, 64), matched = 0;
	size_t k;

	shmctl(0, SHM_INFO, (struct shmid_ds *)&info);
	tap_is(jint(doc, "segments"), n, "%s.segments_count", mode);
	tap_is(list_len(doc, "shm"), n, "%s.segment_rows", mode);
	tap_is_u(juint(doc, "shm_tot"), info.shm_tot, "%s.shm_tot", mode);
	for (i = 0; i < n; i++) {
		o = by_id(doc, "shm", t[i].id);
		matched += o && jint(o, "key") == t[i].key &&
			   juint(o, "size") == t[i].size &&
			   juint(o, "nattch") == t[i].nattch &&
			   jint(o, "cpid") == t[i].cpid &&
			   juint(o, "owner_uid") == t[i].uid &&
			   jint(o, "dest") == !!(t[i].mode & 01000) &&
			   jint(o, "locked") == !!(t[i].mode & 02000);
		if (!o)
			tap_diag("  segment %d missing", t[i].id);
		else if (juint(o, "nattch") != t[i].nattch)
			tap_diag("  segment %d nattch %llu, kernel %lu", t[i].id,
				 juint(o, "nattch"), t[i].nattch);
	}
	tap_is(matched, n, "%s.every_segment_equals_proc", mode);

	o = by_id(doc, "shm", w->seg_orphan);
	tap_ok(!strcmp(jstr(o, "creator_comm"), "creator-b"),
	       "%s.orphan_keeps_creator_command", mode);
	tap_is(jint(o, "orphaned"), 1, "%s.orphan_is_orphaned", mode);
	tap_is(jint(o, "owner_uid"), 1000, "%s.orphan_owner", mode);
	tap_is(jint(by_id(doc, "shm", w->seg_kept), "orphaned"), 0,
	       "%s.attached_without_creator_not_orphaned", mode);
	tap_is(jint(by_id(doc, "shm", w->seg_kept), "creator_alive"), 0,
	       "%s.attached_without_creator_creator_gone", mode);
	tap_ok(!strcmp(jstr(by_id(doc, "shm", w->seg_buffers), "creator_comm"),
		       "creator-a"), "%s.creator_command", mode);
	tap_is(jint(by_id(doc, "shm", w->seg_dest), "dest"), 1,
	       "%s.rmid_while_attached_is_dest", mode);
	tap_is(jint(by_id(doc, "shm", w->seg_buffers), "locked"), 1,
	       "%s.shm_lock_is_locked", mode);
	tap_is(jint(doc, "orphaned_segments"), 1, "%s.orphaned_count", mode);
	tap_is_u(juint(doc, "orphaned_bytes"), w->orphan_size,
		 "%s.orphaned_bytes", mode);

	o = by_id(doc, "sem", w->semset);
	tap_ok(o != NULL, "%s.semaphore_set_shown", mode);
	if (o && json_object_object_get_ex(o, "sems", &sems)) {
		int ok = json_object_array_length(sems) == 3;

		for (k = 0; ok && k < 3; k++) {
			s = json_object_array_get_idx(sems, k);
			ok = jint(s, "value") == semctl(w->semset, k, GETVAL) &&
			     jint(s, "ncnt") == semctl(w->semset, k, GETNCNT) &&
			     jint(s, "zcnt") == semctl(w->semset, k, GETZCNT);
		}
		tap_ok(ok, "%s.sem_values_ncnt_zcnt_equal_semctl", mode);
	} else {
		tap_ok(false, "%s.sem_values_ncnt_zcnt_equal_semctl", mode);
	}
	if (o && json_object_object_get_ex(o, "waiters", &waiters)) {
		int found = 0;

		for (k = 0; k < json_object_array_length(waiters); k++) {
			wt = json_object_array_get_idx(waiters, k);
			found += jint(wt, "pid") == w->w_simple &&
				 jint(wt, "sem_num") == 0 &&
				 !strcmp(jstr(wt, "counts_as"), "ncnt");
			found += jint(wt, "pid") == w->w_zero &&
				 jint(wt, "sem_num") == 1 &&
				 !strcmp(jstr(wt, "counts_as"), "zcnt");
			/* blocks on its first operation: sem 2 */
			found += jint(wt, "pid") == w->w_complex &&
				 jint(wt, "sem_num") == 2 &&
				 jint(wt, "index") == 0 && jint(wt, "nsops") == 2;
		}
		tap_is(found, 3, "%s.waiters_with_their_operation", mode);
		/* each waiter's likely holder: the semaphore's GETPID */
		found = 0;
		for (k = 0; k < json_object_array_length(waiters); k++) {
			char path[64], comm[32] = "";
			int pid;
			FILE *f;

			wt = json_object_array_get_idx(waiters, k);
			pid = semctl(w->semset, (int)jint(wt, "sem_num"),
				     GETPID);
			snprintf(path, sizeof(path), "/proc/%d/comm", pid);
			f = fopen(path, "r");
			if (f) {
				if (fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			if (jint(wt, "last_operator_pid") == pid &&
			    !strcmp(jstr(wt, "last_operator_comm"), comm) &&
			    (jint(wt, "last_operator_alive") == 1) == !!comm[0])
				found++;
			else
				tap_diag("  waiter %lld: last operator %lld (%s), "
					 "GETPID %d (%s)", jint(wt, "pid"),
					 jint(wt, "last_operator_pid"),
					 jstr(wt, "last_operator_comm"), pid,
					 comm);
		}
		tap_ok(found == (int)json_object_array_length(waiters) &&
		       found >= 3, "%s.waiters_last_operator", mode);
	} else {
		tap_ok(false, "%s.waiters_with_their_operation", mode);
		tap_ok(false, "%s.waiters_last_operator", mode);
	}
	tap_ok(strstr(json_object_to_json_string(doc), "\"too_small\"") !=
	       NULL, "%s.recent_refusal_listed", mode);
	tap_is(jint(doc, "lost"), 0, "%s.nothing_lost", mode);
}

/* Wait until top has printed @n documents; false on timeout. */
static bool wait_docs(struct ipcwatch_run *r, int n)
{
	uint64_t deadline = mono_ms() + 60000;

	while (mono_ms() < deadline) {
		FILE *f = fopen(r->out_path, "r");
		int lines = 0, c;

		if (f) {
			while ((c = fgetc(f)) != EOF)
				lines += c == '\n';
			fclose(f);
		}
		if (lines >= n)
			return true;
		usleep(100000);
	}
	return false;
}

/*
 * Tracepoint mode never resyncs here: the state after the snapshot is the
 * event stream's alone and must equal the kernel's. fentry mode has no
 * attach events: its resync must find and correct the drift.
 */
static void test_batch(const char *m, bool expect_exact_stream)
{
	char mode_arg[32];
	const char *argv[] = { "ipcwatch", "top", "-b", "--json", "-d", "1",
			       "--resync", expect_exact_stream ? "3600" : "2",
			       mode_arg, NULL };
	struct ipcwatch_run r;
	struct workload w = { 0 };
	json_object *last;
	int docs = 0, c;
	FILE *f;

	mode = m;
	fresh_ipc_ns();
	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", m);
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL), "%s.starts", mode)) {
		tap_diag("  %s", r.err);
		ipcwatch_free(&r);
		return;
	}
	run_workload(&w);
	/* quiescent now: three more refreshes, so a resync came after */
	f = fopen(r.out_path, "r");
	while (f && (c = fgetc(f)) != EOF)
		docs += c == '\n';
	if (f)
		fclose(f);
	tap_ok(wait_docs(&r, docs + 3), "%s.refreshes_after_workload", mode);
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "%s.exits_cleanly", mode);
	last = r.nevents ? r.events[r.nevents - 1] : NULL;
	tap_ok(last && !strcmp(jstr(last, "type"), "top"),
	       "%s.json_documents", mode);
	check_against_truth(last, &w);
	if (expect_exact_stream)
		tap_is(jint(last, "corrections"), 0,
		       "%s.events_kept_state_exact", mode);
	else
		tap_ok(jint(last, "corrections") > 0,
		       "%s.resync_corrected_drift", mode);
	ipcwatch_free(&r);
	stop_workload();
}

/* ---- the terminal UI through a pty --------------------------------------- */

struct tty {
	pid_t pid;
	int fd;
	char buf[1 << 16];
	size_t len;
	size_t base;		/* bytes dropped from the front of buf */
};

/* Read what is there (waiting @ms at most); false at end of file. */
static bool tty_read(struct tty *t, int ms)
{
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return true;
	if (t->len >= sizeof(t->buf) - 1) {
		/* keep the newer half; positions stay absolute */
		size_t half = t->len / 2;

		memmove(t->buf, t->buf + half, t->len - half);
		t->len -= half;
		t->base += half;
	}
	n = read(t->fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
	if (n <= 0)
		return false;
	t->len += (size_t)n;
	t->buf[t->len] = '\0';
	return true;
}

/*
 * The position after everything the UI printed so far: output that was
 * already on its way is read first (until 200 ms pass quietly), so a
 * match after the mark comes from what follows, never from a refresh
 * before it.
 */
static size_t tty_mark(struct tty *t)
{
	size_t before;

	do {
		before = t->base + t->len;
		if (!tty_read(t, 200))
			break;
	} while (t->base + t->len != before);
	return t->base + t->len;
}

/* Read until @text shows up in what the UI printed since position @from. */
static bool tty_expect(struct tty *t, size_t from, const char *text)
{
	uint64_t deadline = mono_ms() + 30000;

	while (mono_ms() < deadline) {
		size_t at = from > t->base ? from - t->base : 0;

		t->buf[t->len] = '\0';
		if (at <= t->len && strstr(t->buf + at, text))
			return true;
		if (!tty_read(t, 100))
			break;
	}
	return false;
}

static void tty_key(struct tty *t, const char *keys)
{
	if (write(t->fd, keys, strlen(keys)) < 0)
		tap_diag("write to pty failed");
}

static void test_interactive(void)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 160 };
	struct tty t = { 0 };
	size_t mark;
	int status, i;
	struct workload w = { 0 };

	mode = "tty";
	fresh_ipc_ns();
	t.pid = forkpty(&t.fd, NULL, NULL, &ws);
	if (t.pid == 0) {
		setenv("TERM", "vt100", 1);
		execl(IPCWATCH_BIN, "ipcwatch", "top", "-d", "1", NULL);
		_exit(127);
	}
	tap_ok(tty_expect(&t, 0, "ipcwatch top - IPC namespace"),
	       "tty.header_shown");
	/* started first, so it sees the creators before they exit */
	run_workload(&w);
	tap_ok(tty_expect(&t, 0, "NATTCH") && tty_expect(&t, 0, "0x0000a11c"),
	       "tty.segment_rows_shown");
	tap_ok(tty_expect(&t, 0, "creator-b"),
	       "tty.orphan_creator_command_shown");

	mark = tty_mark(&t);
	tty_key(&t, "m");
	tap_ok(tty_expect(&t, mark, "SEMID") && tty_expect(&t, mark, "LASTPID"),
	       "tty.semaphore_screen");
	mark = tty_mark(&t);
	tty_key(&t, "s>");
	tap_ok(tty_expect(&t, mark, "sort: key"), "tty.sort_next_column");
	mark = tty_mark(&t);
	tty_key(&t, "r");
	tap_ok(tty_expect(&t, mark, "(rev)"), "tty.sort_reverse");
	mark = tty_mark(&t);
	tty_key(&t, "h");
	tap_ok(tty_expect(&t, mark, "keys"), "tty.help_screen");
	mark = tty_mark(&t);
	tty_key(&t, "x");
	tap_ok(tty_expect(&t, mark, "NATTCH"), "tty.help_closes_on_any_key");
	mark = tty_mark(&t);
	tty_key(&t, "e");
	tap_ok(tty_expect(&t, mark, "RECENT REFUSALS"), "tty.recent_screen");
	ws.ws_row = 30;
	ws.ws_col = 120;
	mark = tty_mark(&t);
	ioctl(t.fd, TIOCSWINSZ, &ws);
	kill(t.pid, SIGWINCH);
	tap_ok(tty_expect(&t, mark, "RECENT REFUSALS"), "tty.redraws_on_resize");
	tty_key(&t, "q");
	for (i = 0; i < 100 && waitpid(t.pid, &status, WNOHANG) == 0; i++)
		usleep(100000);
	tap_ok(i < 100 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "tty.quits_with_q");
	if (i == 100) {
		kill(t.pid, SIGKILL);
		waitpid(t.pid, NULL, 0);
	}
	close(t.fd);
	stop_workload();
}

/* ---- names chosen by other users ------------------------------------------ */

#define EVIL_COMM "\x1b]0;pwn\x07x"

/* A creator that lives, named to set the terminal's title. */
static int make_evil(void *arg)
{
	int *fds = arg, id;

	named(EVIL_COMM);
	id = shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600);
	if (write(fds[1], &id, sizeof(id)) != sizeof(id))
		return 1;
	for (;;)
		pause();
}

/* The COMMAND column of the text batch mode shows the name escaped. */
static void test_escaped_comm(void)
{
	const char *argv[] = { "ipcwatch", "top", "-b", "-n", "1", NULL };
	struct ipcwatch_run r;
	int fds[2], id = -1;
	pid_t pid;

	fresh_ipc_ns();
	if (pipe(fds))
		exit(2);
	pid = spawn(make_evil, fds);
	if (read(fds[0], &id, sizeof(id)) != sizeof(id))
		id = -1;
	close(fds[0]);
	close(fds[1]);
	tap_ok(id >= 0, "escaped_comm.created");
	ipcwatch_exec(&r, argv, NULL, NULL);
	tap_is(r.status, 0, "escaped_comm.exits_0");
	if (!tap_ok(r.out && strstr(r.out, "\\x1b]0;pwn\\x07x"),
		    "escaped_comm.command_escaped"))
		tap_diag("  stderr: %s", r.err);
	tap_ok(r.out && !strchr(r.out, '\x1b') && !strchr(r.out, '\x07'),
	       "escaped_comm.no_control_bytes");
	ipcwatch_free(&r);
	kill(pid, SIGKILL);
	reap(pid);
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
}

/* ---- every IPC namespace: top -A and limits -A ---------------------------- */

#define NNS 3
#define DOCKER_ID "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
#define DOCKER_CG "/sys/fs/cgroup/system.slice/docker-" DOCKER_ID ".scope"

struct ns_child {
	pid_t pid;
	unsigned long inum;
};

/*
 * Namespace @i: its own limits, i + 1 segments (the first attached),
 * a set of 2 + i semaphores, a queue holding one message of 10 + i
 * bytes. Namespace 0 lives in a cgroup named as docker names its
 * containers'. Says it is ready on @fd, then sleeps until killed.
 */
static void ns_child_run(int i, int fd)
{
	struct { long type; char text[64]; } msg = { 1, "" };
	char sem[64];
	int k, id, q;

	if (i == 0) {
		FILE *f = fopen(DOCKER_CG "/cgroup.procs", "w");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			_exit(3);
	}
	if (unshare(CLONE_NEWIPC))
		_exit(4);
	sysctl_must_set("shmmni", 100 + i);
	sysctl_must_set("msgmni", 20 + i);
	snprintf(sem, sizeof(sem), "250 32000 32 %d", 50 + i);
	if (sysctl_set("sem", sem))
		_exit(5);
	for (k = 0; k <= i; k++) {
		id = shmget(0x5100 + 16 * i + k, (size_t)(k + 1) << 12,
			    IPC_CREAT | 0600);
		if (id < 0 || (k == 0 && shmat(id, NULL, 0) == (void *)-1))
			_exit(6);
	}
	if (semget(0x5200 + i, 2 + i, IPC_CREAT | 0600) < 0)
		_exit(7);
	q = msgget(0x5300 + i, IPC_CREAT | 0600);
	if (q < 0 || msgsnd(q, &msg, 10 + i, 0))
		_exit(8);
	if (write(fd, "r", 1) != 1)
		_exit(9);
	for (;;)
		pause();
}

static bool ns_children_start(struct ns_child *c)
{
	int i, fds[2];
	char ch;

	mkdir("/sys/fs/cgroup/system.slice", 0755);
	mkdir(DOCKER_CG, 0755);
	for (i = 0; i < NNS; i++) {
		char path[64];
		struct stat st;

		if (pipe(fds))
			return false;
		c[i].pid = fork();
		if (c[i].pid == 0) {
			close(fds[0]);
			ns_child_run(i, fds[1]);
		}
		close(fds[1]);
		if (read(fds[0], &ch, 1) != 1) {
			close(fds[0]);
			tap_diag("namespace %d: child exited with %d", i,
				 reap(c[i].pid));
			c[i].pid = 0;
			return false;
		}
		close(fds[0]);
		snprintf(path, sizeof(path), "/proc/%d/ns/ipc", c[i].pid);
		if (stat(path, &st))
			return false;
		c[i].inum = st.st_ino;
	}
	return true;
}

static void ns_children_stop(struct ns_child *c)
{
	for (int i = 0; i < NNS; i++)
		if (c[i].pid > 0) {
			kill(c[i].pid, SIGKILL);
			reap(c[i].pid);
			c[i].pid = 0;
		}
	rmdir(DOCKER_CG);
}

/* What nsenter reads in the namespace of @pid: the file, or NULL. */
static char *nsenter_read(pid_t pid, const char *file)
{
	char cmd[256], *buf = NULL;
	size_t len = 0;
	FILE *p, *out;
	int ch;

	snprintf(cmd, sizeof(cmd), "nsenter -t %d -i cat %s", pid, file);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	out = open_memstream(&buf, &len);
	while ((ch = fgetc(p)) != EOF)
		fputc(ch, out);
	fclose(out);
	if (pclose(p)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static unsigned long nsenter_number(pid_t pid, const char *sysctl, int nth)
{
	char file[128], *text, *p;
	unsigned long v = 0;
	int k;

	snprintf(file, sizeof(file), "/proc/sys/kernel/%s", sysctl);
	text = nsenter_read(pid, file);
	if (!text)
		return ~0UL;
	for (p = text, k = 0; k <= nth; k++)
		v = strtoul(p, &p, 10);
	free(text);
	return v;
}

static json_object *ns_doc(json_object *doc, unsigned long inum)
{
	json_object *arr;
	size_t i;

	if (!doc || !json_object_object_get_ex(doc, "namespaces", &arr))
		return NULL;
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if (juint(o, "ipcns") == inum)
			return o;
	}
	return NULL;
}

/*
 * Each row of a /proc/sysvipc table as nsenter read it has its object
 * in @list of the namespace's document, with @col2 and @col3 (the
 * table's columns, from 0) equal to @key2 and @key3; and no more.
 */
static void rows_equal(pid_t pid, json_object *ns, const char *table,
		       const char *list, int col2, const char *key2,
		       int col3, const char *key3, const char *check)
{
	char file[64], *text, *line, *save = NULL;
	json_object *arr = NULL;
	size_t rows = 0;
	bool all = true;

	snprintf(file, sizeof(file), "/proc/sysvipc/%s", table);
	text = nsenter_read(pid, file);
	if (!tap_ok(text != NULL, "%s.nsenter_read", check))
		return;
	json_object_object_get_ex(ns, list, &arr);
	line = strtok_r(text, "\n", &save);	/* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned long long col[16] = { 0 };
		char *p = line;
		json_object *o;
		int k;

		for (k = 0; k < 16 && *p; k++)
			col[k] = strtoull(p, &p, k == 2 ? 8 : 10);
		rows++;
		o = by_id(ns, list, (int)col[1]);
		if (!o || jint(o, "key") != (int)col[0] ||
		    juint(o, key2) != col[col2] ||
		    juint(o, key3) != col[col3]) {
			tap_diag("  %s: id %llu key %lld %s %llu %s %llu: "
				 "not so in top", check, col[1],
				 (long long)(int)col[0], key2, col[col2],
				 key3, col[col3]);
			all = false;
		}
	}
	free(text);
	tap_ok(all && rows > 0, "%s.rows_equal", check);
	tap_is(arr ? (long long)json_object_array_length(arr) : -1,
	       (long long)rows, "%s.no_more_rows", check);
}

static void check_ns(json_object *doc, const struct ns_child *c, int i,
		     const char *what, bool limits)
{
	json_object *ns = ns_doc(doc, c->inum);
	char check[64];

	snprintf(check, sizeof(check), "%s.ns%d", what, i);
	if (!tap_ok(ns != NULL, "%s.listed", check))
		return;
	tap_is(juint(ns, "shmmni"), nsenter_number(c->pid, "shmmni", 0),
	       "%s.shmmni", check);
	tap_is(juint(ns, "semmni"), nsenter_number(c->pid, "sem", 3),
	       "%s.semmni", check);
	tap_is(juint(ns, "msgmni"), nsenter_number(c->pid, "msgmni", 0),
	       "%s.msgmni", check);
	/* the namespace's own settings, not this one's */
	tap_is(juint(ns, "shmmni"), 100 + i, "%s.shmmni_its_own", check);
	tap_is(juint(ns, "segments"), i + 1, "%s.segments", check);
	tap_str(jstr(ns, "owner"), i == 0 ? "docker:c0ffee00c0ff" : "",
		"%s.owner", check);
	if (limits) {
		tap_is(juint(ns, "sem_sets"), 1, "%s.sem_sets", check);
		tap_is(juint(ns, "msg_queues"), 1, "%s.msg_queues", check);
		return;
	}
	/* key size nattch; key nsems; key cbytes qnum */
	rows_equal(c->pid, ns, "shm", "shm", 3, "size", 6, "nattch", check);
	rows_equal(c->pid, ns, "sem", "sem", 3, "nsems", 4, "owner_uid",
		   check);
	rows_equal(c->pid, ns, "msg", "msg", 3, "bytes", 4, "messages", check);
	if (i == 0) {
		json_object *seg = by_id(ns, "shm", 0);

		tap_str(seg ? jstr(seg, "owner") : "", "docker:c0ffee00c0ff",
			"%s.segment_owner", check);
	}
}

static void test_all_namespaces(const char *m)
{
	char mode_arg[32];
	const char *top[] = { "ipcwatch", "top", "-A", "-b", "--json", "-d",
			      "1", mode_arg, NULL };
	const char *limits[] = { "ipcwatch", "limits", "-A", "--json", NULL };
	struct ns_child c[NNS] = { 0 };
	struct ipcwatch_run r;
	json_object *last = NULL, *arr;
	char what[48];
	bool gone_seen = false;
	uint64_t deadline;
	int i;

	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", m);
	if (!tap_ok(ns_children_start(c), "all_ns.%s.setup", m)) {
		ns_children_stop(c);
		return;
	}
	if (!strcmp(m, "fentry")) {
		/* limits reads no events: once is enough */
		tap_is(ipcwatch_exec(&r, limits, NULL, NULL), 0,
		       "all_ns.limits.exits_0");
		last = r.nevents == 1 ? r.events[0] : NULL;
		tap_str(last ? jstr(last, "type") : "", "limits_all",
			"all_ns.limits.one_document");
		for (i = 0; i < NNS; i++)
			check_ns(last, &c[i], i, "all_ns.limits", true);
		ipcwatch_free(&r);
	}
	if (!tap_ok(ipcwatch_start(&r, top, NULL, NULL),
		    "all_ns.%s.top_starts", m)) {
		tap_diag("  %s", r.err);
		ipcwatch_free(&r);
		ns_children_stop(c);
		return;
	}
	tap_ok(wait_docs(&r, 2), "all_ns.%s.refreshes", m);
	/* namespace 2 torn down while watched: its last process killed */
	kill(c[2].pid, SIGKILL);
	reap(c[2].pid);
	c[2].pid = 0;
	deadline = mono_ms() + 30000;
	while (!gone_seen && mono_ms() < deadline) {
		FILE *f = fopen(r.out_path, "r");
		char *line = NULL;
		size_t cap = 0;

		while (f && getline(&line, &cap, f) > 0)
			if (strstr(line, "\"gone\":[{"))
				gone_seen = true;
		free(line);
		if (f)
			fclose(f);
		usleep(200000);
	}
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "all_ns.%s.exits_cleanly", m);
	/* the last document from before the teardown, and the last one */
	for (i = r.nevents; i-- > 0;) {
		json_object *doc = r.events[i];

		if (ns_doc(doc, c[2].inum) &&
		    json_object_object_get_ex(doc, "gone", &arr) &&
		    json_object_array_length(arr) == 0) {
			last = doc;
			break;
		}
	}
	tap_ok(last != NULL, "all_ns.%s.document_before_teardown", m);
	snprintf(what, sizeof(what), "all_ns.%s", m);
	for (i = 0; i < 2 && last; i++)
		check_ns(last, &c[i], i, what, false);
	tap_ok(last && juint(last, "count") >= NNS + 1,
	       "all_ns.%s.own_and_init_listed_too", m);
	last = r.nevents ? r.events[r.nevents - 1] : NULL;
	arr = NULL;
	if (last)
		json_object_object_get_ex(last, "gone", &arr);
	if (tap_ok(arr && json_object_array_length(arr) == 1,
		   "all_ns.%s.teardown_reported", m)) {
		json_object *g = json_object_array_get_idx(arr, 0);

		tap_is(juint(g, "segments"), 3, "all_ns.%s.gone_segments", m);
		tap_is(juint(g, "bytes"), (1 + 2 + 3) << 12,
		       "all_ns.%s.gone_bytes", m);
		tap_is(juint(g, "sem_sets"), 1, "all_ns.%s.gone_sem_sets", m);
		tap_is(juint(g, "msg_queues"), 1, "all_ns.%s.gone_msg_queues",
		       m);
	}
	tap_ok(last && !ns_doc(last, c[2].inum), "all_ns.%s.gone_not_listed",
	       m);
	ipcwatch_free(&r);
	ns_children_stop(c);
}

/*
 * Namespaces no process is in any more: one kept by an nsfs bind mount,
 * one by a descriptor this process holds. limits -A finds both, reads
 * both in themselves; unmounted and closed, they are gone.
 */
static void test_kept_namespaces(void)
{
	const char *limits[] = { "ipcwatch", "limits", "-A", "--json", NULL };
	const char *mnt = "/run/ipcwatch-kept-ns";
	struct ipcwatch_run r;
	struct ns_child c[NNS + 2] = { 0 };
	json_object *doc, *ns;
	char path[64];
	int i, fd, fds[2];
	char ch;

	for (i = NNS; i < NNS + 2; i++) {
		struct stat st;

		if (pipe(fds))
			return;
		c[i].pid = fork();
		if (c[i].pid == 0) {
			close(fds[0]);
			ns_child_run(i, fds[1]);
		}
		close(fds[1]);
		if (!tap_ok(read(fds[0], &ch, 1) == 1, "kept_ns.setup_%d", i))
			return;
		close(fds[0]);
		snprintf(path, sizeof(path), "/proc/%d/ns/ipc", c[i].pid);
		stat(path, &st);
		c[i].inum = st.st_ino;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", c[NNS].pid);
	close(open(mnt, O_CREAT | O_WRONLY, 0600));
	tap_is(mount(path, mnt, NULL, MS_BIND, NULL), 0, "kept_ns.bind_mount");
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", c[NNS + 1].pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	tap_ok(fd >= 0, "kept_ns.descriptor_open");
	for (i = NNS; i < NNS + 2; i++) {
		kill(c[i].pid, SIGKILL);
		reap(c[i].pid);
	}
	tap_is(ipcwatch_exec(&r, limits, NULL, NULL), 0, "kept_ns.exits_0");
	doc = r.nevents == 1 ? r.events[0] : NULL;
	ns = ns_doc(doc, c[NNS].inum);
	if (tap_ok(ns != NULL, "kept_ns.mount.listed")) {
		tap_str(jstr(ns, "reached_via"), "mount", "kept_ns.mount.via");
		tap_is(jint(ns, "processes"), 0, "kept_ns.mount.no_process");
		tap_is(jint(ns, "segments"), NNS + 1, "kept_ns.mount.segments");
		tap_is(jint(ns, "shmmni"), 100 + NNS, "kept_ns.mount.shmmni");
	}
	ns = ns_doc(doc, c[NNS + 1].inum);
	if (tap_ok(ns != NULL, "kept_ns.fd.listed")) {
		tap_str(jstr(ns, "reached_via"), "descriptor", "kept_ns.fd.via");
		tap_is(jint(ns, "pid"), getpid(), "kept_ns.fd.holder");
		tap_is(jint(ns, "segments"), NNS + 2, "kept_ns.fd.segments");
	}
	ipcwatch_free(&r);
	umount(mnt);
	unlink(mnt);
	close(fd);
	tap_is(ipcwatch_exec(&r, limits, NULL, NULL), 0, "kept_ns.again_exits_0");
	doc = r.nevents == 1 ? r.events[0] : NULL;
	tap_ok(doc && !ns_doc(doc, c[NNS].inum) && !ns_doc(doc, c[NNS + 1].inum),
	       "kept_ns.released_not_listed");
	ipcwatch_free(&r);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Debian's kernel has no ipc tracepoints */
	if (!on_kernel("stock"))
		test_batch("tracepoint", true);
	test_batch("fentry", false);
	if (!on_kernel("stock"))
		test_all_namespaces("tracepoint");
	test_all_namespaces("fentry");
	test_kept_namespaces();
	test_escaped_comm();
	test_interactive();
	return tap_done();
}
