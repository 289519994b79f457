// SPDX-License-Identifier: GPL-2.0
/*
 * The storm: /tests/storm (a seeded IPC workload over several uids and
 * IPC namespaces) runs for a bounded time with `ipcwatch enforce` and
 * `ipcwatch events --json` attached, on the lockdep/PROVE_RCU kernel.
 * In the middle the policy is reloaded with SIGHUP and the daemon is
 * killed with SIGKILL and started again. At the end the kernel log has
 * no splat, the daemon's per-owner totals and segment table equal
 * /proc/sysvipc of every namespace (read through the storm's holder in
 * each), and the storm's own counts of what the kernel answered equal
 * the events delivered plus the drops reported.
 *
 * Options on the kernel command line: ipcwatch.storm_seed=S,
 * ipcwatch.storm_duration=SECONDS, ipcwatch.storm_workers=N,
 * ipcwatch.storm_pace=MS (the longest pause of a worker before a call).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_storm";

/* not in /tmp: a policy must sit in directories only root can write */
#define CONF_DIR "/etc/ipcwatch-storm"
#define POLICY CONF_DIR "/policy.ini"
#define METRICS "/tmp/storm.prom"
#define STORM_BIN "/tests/storm"
#define STORM_OUT "/tmp/storm.json"
#define STORM_ERR "/tmp/storm.err"
#define PLAN_IN "/tmp/storm.plan.in"
#define PLAN_OUT "/tmp/storm.plan.out"
#define PIN_DIR "/sys/fs/bpf/ipcwatch"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_NS 8
#define NERR 134
#define CMD_SLOTS 16

/* the same lines vmtest/report.sh calls a splat */
#define SPLAT_RE "WARNING:|BUG:|Oops|Kernel panic|general protection fault|" \
		 "Call Trace:|rcu: INFO:|detected stall|KASAN:|UBSAN:|" \
		 "blocked for more than|Unable to handle"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A short pause between two looks at a state awaited with a deadline. */
static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return strdup("");
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/* ---- options ------------------------------------------------------------- */

static unsigned long cmdline_opt(const char *name, unsigned long def)
{
	char *cmd = slurp("/proc/cmdline"), key[64], *p;
	unsigned long v = def;

	snprintf(key, sizeof(key), "ipcwatch.%s=", name);
	p = strstr(cmd, key);
	if (p)
		v = strtoul(p + strlen(key), NULL, 0);
	free(cmd);
	return v;
}

/* ---- the kernel log ------------------------------------------------------ */

static int kmsg_fd = -1;

/* From now on: records before the suite are not its business. */
static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Splat lines logged since kmsg_open(); -1 if the log is unreadable. */
static int kmsg_splats(void)
{
	char rec[8192];
	regex_t re;
	int n = 0;
	ssize_t len;

	if (kmsg_fd < 0 || regcomp(&re, SPLAT_RE, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (;;) {
		char *msg;

		len = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (len <= 0)
			break;
		rec[len] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (!regexec(&re, msg, 0, NULL, 0)) {
			if (n < 20)
				tap_diag("  kernel: %.*s",
					 (int)strcspn(msg, "\n"), msg);
			n++;
		}
	}
	regfree(&re);
	return n;
}

/* ---- errno names, as the storm reports them ------------------------------ */

static int errno_by_name(const char *name)
{
	int e;

	for (e = 1; e < NERR; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

static const char *errno_text(int e)
{
	const char *n = e ? strerrorname_np(e) : "ok";

	return n ? n : "?";
}

/* ---- ipcwatch ------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(2);
}

/*
 * Never matched (after the catch-all), but they make the daemon keep
 * totals in every scope, so that all four are compared with /proc.
 */
#define KEEP_EVERY_SCOPE \
	"[rule keep_gid]\naccount = gid\nmode = audit\nmax_segments = 1000000\n" \
	"[rule keep_cgroup]\ncgroup = /sys/fs/cgroup\naccount = cgroup\n" \
	"mode = audit\n" \
	"max_segments = 1000000\n" \
	"[rule keep_ipcns]\naccount = ipcns\nmode = audit\n" \
	"max_segments = 1000000\n"

static const char *const policy_v1 =
	"; the storm's uids: quotas enforced for three, audit for the rest\n"
	"[rule u1000]\nuid = 1000\nmode = enforce\nmax_total_bytes = 1M\n"
	"[rule u1001]\nuid = 1001\nmode = enforce\nmax_segments = 12\n"
	"[rule u1002]\nuid = 1002\nmode = enforce\nmax_segment_bytes = 256K\n"
	"max_total_bytes = 8M\n"
	"[rule others]\nmode = audit\nmax_total_bytes = 4M\n"
	"max_segments = 64\n" KEEP_EVERY_SCOPE;

/* The reload changes every quota, and keeps the rules' names. */
static const char *const policy_v2 =
	"[rule u1000]\nuid = 1000\nmode = enforce\nmax_total_bytes = 2M\n"
	"[rule u1001]\nuid = 1001\nmode = enforce\nmax_segments = 6\n"
	"[rule u1002]\nuid = 1002\nmode = enforce\nmax_segment_bytes = 128K\n"
	"max_total_bytes = 8M\n"
	"[rule others]\nmode = audit\nmax_total_bytes = 4M\n"
	"max_segments = 64\n" KEEP_EVERY_SCOPE;

/* Over u1000's total in either policy, whatever it holds. */
#define OVER_QUOTA (8UL << 20)

static const char *const enforce_argv[] = {
	"ipcwatch", "enforce", "-c", POLICY, "--json",
	"--metrics-file", METRICS, "--interval", "0.2", NULL
};

static const char *const events_argv[] = {
	"ipcwatch", "events", "--json", NULL
};

/* Whether @needle is in the file, looking from *@off on. */
static bool file_has(const char *path, long *off, const char *needle)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	bool found = false;

	if (!f)
		return false;
	fseek(f, *off, SEEK_SET);
	while (!found && (len = getline(&buf, &cap, f)) > 0) {
		if (buf[len - 1] != '\n')
			break;		/* its end is not written yet */
		*off += len;
		found = strstr(buf, needle) != NULL;
	}
	free(buf);
	fclose(f);
	return found;
}

static bool wait_file_has(const char *path, long *off, const char *needle,
			  int seconds)
{
	uint64_t end = now_ms() + seconds * 1000ULL;

	do {
		if (file_has(path, off, needle))
			return true;
		pause_ms(50);
	} while (now_ms() < end);
	return false;
}

/* The first record of @type in what a daemon printed, or NULL. */
static json_object *first_record(const char *path, const char *type)
{
	char needle[64], *buf = NULL;
	size_t cap = 0;
	json_object *o = NULL;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	snprintf(needle, sizeof(needle), "\"type\":\"%s\"", type);
	while (!o && getline(&buf, &cap, f) > 0)
		if (strstr(buf, needle))
			o = json_tokener_parse(buf);
	free(buf);
	fclose(f);
	return o;
}

/* Stop with @sig without parsing what it printed (the events may be big). */
static int stop_quietly(struct ipcwatch_run *r, int sig)
{
	int status;

	kill(r->pid, sig);
	if (waitpid(r->pid, &status, 0) != r->pid)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

static int records(const struct ipcwatch_run *r, const char *type,
		   const char *comm, int enforced)
{
	int i, n = 0;

	for (i = 0; i < r->nevents; i++) {
		json_object *o = r->events[i];

		if (strcmp(jstr(o, "type"), type) ||
		    (comm && strcmp(jstr(o, "comm"), comm)) ||
		    (enforced >= 0 && jint(o, "enforced") != enforced))
			continue;
		n++;
	}
	return n;
}

/* shmget() of @size as @uid in a child: the id, or -errno. */
static int shmget_as(uid_t uid, size_t size)
{
	int fds[2], ret = -EIO;
	pid_t pid;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		int r;

		if (setgid(uid) || setuid(uid))
			_exit(1);
		r = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
		r = r < 0 ? -errno : r;
		_exit(write(fds[1], &r, sizeof(r)) != sizeof(r));
	}
	reap(pid);
	if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(fds[0]);
	close(fds[1]);
	return ret;
}

/* ---- the storm process --------------------------------------------------- */

struct storm_ns {
	unsigned long inum;
	pid_t holder;
	bool created;
};

struct storm_run {
	pid_t pid;
	int in;			/* its stdin: closed, the holders go */
	int out;		/* its stdout, read line by line */
	char buf[4096];
	size_t len;
	struct storm_ns ns[MAX_NS];
	int nns;
	unsigned long progress_s;
	unsigned long long ops;
	bool stormed;		/* its workers are done */
	uint64_t started_ms;	/* when it said so */
	bool reaped;
};

static bool storm_start(struct storm_run *s, unsigned long seed,
			unsigned long duration, unsigned long workers,
			unsigned long pace)
{
	char seed_s[32], dur_s[32], work_s[32], pace_s[32];
	int in[2], out[2], err;

	memset(s, 0, sizeof(*s));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return false;
	snprintf(seed_s, sizeof(seed_s), "%lu", seed);
	snprintf(dur_s, sizeof(dur_s), "%lu", duration);
	snprintf(work_s, sizeof(work_s), "%lu", workers);
	snprintf(pace_s, sizeof(pace_s), "%lu", pace);
	s->pid = fork();
	if (s->pid == 0) {
		err = open(STORM_ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err, 2);
		execl(STORM_BIN, "storm", "--seed", seed_s, "--duration", dur_s,
		      "--workers", work_s, "--pace", pace_s,
		      "--namespaces", "3", "--out", STORM_OUT, NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->in = in[1];
	s->out = out[0];
	return s->pid > 0;
}

/* The next line the storm printed, within @end (ms); false if none. */
static bool storm_line(struct storm_run *s, char *line, size_t len,
		       uint64_t end)
{
	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);
		struct pollfd p = { .fd = s->out, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - s->buf);

			snprintf(line, len, "%.*s", (int)l, s->buf);
			memmove(s->buf, nl + 1, s->len - l - 1);
			s->len -= l + 1;
			return true;
		}
		if (now >= end || s->len == sizeof(s->buf))
			return false;
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		n = read(s->out, s->buf + s->len, sizeof(s->buf) - s->len);
		if (n <= 0)
			return false;
		s->len += (size_t)n;
	}
}

/* Read lines until @word, keeping the progress; false at the deadline. */
static bool storm_wait(struct storm_run *s, const char *word, uint64_t end)
{
	char line[256];

	if (!strcmp(word, "stormed") && s->stormed)
		return true;
	while (storm_line(s, line, sizeof(line), end)) {
		struct storm_ns *n = &s->ns[s->nns];
		int idx, created;

		if (sscanf(line, "holder %d %lu %d %d", &idx, &n->inum,
			   &n->holder, &created) == 4 && s->nns < MAX_NS) {
			n->created = created;
			s->nns++;
		}
		sscanf(line, "progress %lu %llu", &s->progress_s, &s->ops);
		if (sscanf(line, "stormed %llu", &s->ops) == 1)
			s->stormed = true;
		if (!strcmp(line, "started"))
			s->started_ms = now_ms();
		if (!strncmp(line, word, strlen(word)))
			return true;
	}
	return false;
}

/* Seconds since the storm started, for the log. */
static double storm_time(const struct storm_run *s)
{
	return (now_ms() - s->started_ms) / 1000.0;
}

/* Until the storm has run @seconds (or is over). */
static bool storm_wait_progress(struct storm_run *s, unsigned long seconds,
				uint64_t end)
{
	char line[256];

	while (s->progress_s < seconds) {
		if (!storm_line(s, line, sizeof(line), end))
			return false;
		sscanf(line, "progress %lu %llu", &s->progress_s, &s->ops);
		if (sscanf(line, "stormed %llu", &s->ops) == 1) {
			s->stormed = true;
			return false;
		}
	}
	return true;
}

static int ns_index(const struct storm_run *s, unsigned long inum)
{
	int i;

	for (i = 0; i < s->nns; i++)
		if (s->ns[i].inum == inum)
			return i;
	return -1;
}

/* ---- /proc/sysvipc of a namespace, read in it ---------------------------- */

struct shm_row {
	int id;
	unsigned long long size;
	unsigned long nattch;
	unsigned int cuid, cgid;
	int cpid;
};

struct ns_view {
	struct shm_row *rows;
	int nrows;
	int nsems;	/* semaphore sets */
};

/* A child enters the namespace of @holder and sends the file's text. */
static char *read_in_ns(pid_t holder, const char *file)
{
	char path[64], *text;
	int fds[2];
	pid_t pid;
	FILE *f;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		char chunk[4096];
		size_t n;
		int fd;

		close(fds[0]);
		snprintf(path, sizeof(path), "/proc/%d/ns/ipc", holder);
		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWIPC))
			_exit(1);
		f = fopen(file, "r");
		if (!f)
			_exit(1);
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			if (write(fds[1], chunk, n) != (ssize_t)n)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	text = NULL;
	{
		size_t cap = 0;

		if (!f || getdelim(&text, &cap, '\0', f) < 0) {
			free(text);
			text = NULL;
		}
	}
	if (f)
		fclose(f);
	if (reap(pid)) {
		free(text);
		return NULL;
	}
	return text;
}

static bool view_ns(pid_t holder, struct ns_view *v)
{
	char *shm = read_in_ns(holder, "/proc/sysvipc/shm"), *line, *save;
	char *sem = read_in_ns(holder, "/proc/sysvipc/sem");
	int cap = 0;

	memset(v, 0, sizeof(*v));
	if (!shm || !sem) {
		free(shm);
		free(sem);
		return false;
	}
	line = strtok_r(shm, "\n", &save);	/* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct shm_row r;
		unsigned int mode, uid, gid;
		int key, lpid;

		if (sscanf(line, "%d %d %o %llu %d %d %lu %u %u %u %u", &key,
			   &r.id, &mode, &r.size, &r.cpid, &lpid, &r.nattch,
			   &uid, &gid, &r.cuid, &r.cgid) != 11)
			continue;
		if (v->nrows == cap) {
			cap = cap ? cap * 2 : 256;
			v->rows = realloc(v->rows, cap * sizeof(*v->rows));
		}
		v->rows[v->nrows++] = r;
	}
	line = strtok_r(sem, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save)))
		v->nsems++;
	free(shm);
	free(sem);
	return true;
}

/* ---- metrics ------------------------------------------------------------- */

static double metric(const char *text, const char *sample)
{
	const char *p = text;
	size_t len = strlen(sample);

	while ((p = strstr(p, sample))) {
		if ((p == text || p[-1] == '\n') && p[len] == ' ')
			return strtod(p + len + 1, NULL);
		p += len;
	}
	return -1;
}

/* Owners with bytes and segments, of one scope. */
struct owner {
	unsigned long long id;
	long long bytes, segs;
};

struct owners {
	struct owner o[256];
	int n;
};

static struct owner *owner_of(struct owners *s, unsigned long long id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->o[i].id == id)
			return &s->o[i];
	if (s->n == (int)ARRAY_SIZE(s->o))
		return &s->o[s->n - 1];
	s->o[s->n] = (struct owner){ .id = id };
	return &s->o[s->n++];
}

static void metric_owners(const char *text, const char *scope,
			  struct owners *out)
{
	static const char *const fam[2] = { "ipcwatch_owner_shm_bytes",
					    "ipcwatch_owner_shm_segments" };
	char prefix[128];
	const char *p;
	int k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < 2; k++) {
		snprintf(prefix, sizeof(prefix), "%s{scope=\"%s\",owner=\"",
			 fam[k], scope);
		for (p = strstr(text, prefix); p; p = strstr(p + 1, prefix)) {
			unsigned long long id;
			double v;

			if (p != text && p[-1] != '\n')
				continue;
			if (sscanf(p + strlen(prefix), "%llu\"} %lf", &id,
				   &v) != 2)
				continue;
			if (k)
				owner_of(out, id)->segs = (long long)v;
			else
				owner_of(out, id)->bytes = (long long)v;
		}
	}
}

/* Differences between two owner sets, each way; said when @say. */
static int owners_differ(const char *scope, const struct owners *got,
			 const struct owners *want, bool say)
{
	struct owners all = *want;
	int i, bad = 0;

	for (i = 0; i < got->n; i++)
		owner_of(&all, got->o[i].id);
	for (i = 0; i < all.n; i++) {
		const struct owner *g = NULL, *w = NULL;
		int j;

		for (j = 0; j < got->n; j++)
			if (got->o[j].id == all.o[i].id)
				g = &got->o[j];
		for (j = 0; j < want->n; j++)
			if (want->o[j].id == all.o[i].id)
				w = &want->o[j];
		if ((g ? g->bytes : 0) == (w ? w->bytes : 0) &&
		    (g ? g->segs : 0) == (w ? w->segs : 0))
			continue;
		bad++;
		if (say)
			tap_diag("  %s %llu: metrics %lld bytes %lld segments, "
				 "/proc/sysvipc %lld bytes %lld segments",
				 scope, all.o[i].id, g ? g->bytes : 0,
				 g ? g->segs : 0, w ? w->bytes : 0,
				 w ? w->segs : 0);
	}
	return bad;
}

/* ---- the events, tallied as they come ------------------------------------ */

static const char *const causes[] = {
	"rmid", "last_detach", "forced_detach", "orphan_exit",
	"orphan_sysctl", "ns_exit", "unexplained",
};
#define NCAUSES ((int)ARRAY_SIZE(causes))

struct ns_tally {
	/* by the storm's processes */
	uint64_t create_ok;
	uint64_t create_err[NERR];	/* refusals but existing_smaller */
	uint64_t existing_smaller;
	uint64_t lsm_denied[NERR];
	uint64_t shmat[NERR];		/* [0]: attached */
	uint64_t attach, detach;
	uint64_t shmctl[CMD_SLOTS][NERR];	/* [cmd][0]: success */
	uint64_t shmctl_other;		/* a cmd the storm never makes */
	uint64_t sem_block;
	uint64_t sem_wake[NERR];	/* [0]: got the semaphore */
	/* by anyone: each creation must end in one destruction */
	uint64_t creates, destroys;
	uint64_t cause[NCAUSES + 1];
};

struct reason_count {
	char name[24];
	uint64_t n;
};

/* Whether a segment exists, by namespace and id, as the events say. */
struct seg_slot {
	uint64_t key;		/* ns index << 32 | id, + 1: 0 is free */
	bool alive;
};

#define SEG_SLOTS (1 << 18)

struct tally {
	FILE *f;
	const struct storm_run *storm;
	struct ns_tally ns[MAX_NS];
	struct reason_count reasons[32];
	int nreasons;
	uint64_t lines, unparsed, other_ns;
	uint64_t lost_records, lost_total;
	uint64_t twice_created, destroyed_unknown;
	struct seg_slot *segs;
	/* the daemon's own guard proof segments: not the storm's */
	int proof_ns[8], proof_id[8], nproofs;
};

/* A segment enforce made to prove its guard (comm ipcwatch, 1 byte). */
static bool daemon_proof(struct tally *t, json_object *o, int n,
			 const char *type)
{
	int i, id = (int)jint(o, "id");

	if (!strcmp(type, "shm_create")) {
		if (strcmp(jstr(o, "comm"), "ipcwatch") || jint(o, "err") ||
		    jint(o, "size") != 1 || t->nproofs == 8)
			return false;
		t->proof_ns[t->nproofs] = n;
		t->proof_id[t->nproofs++] = id;
		return true;
	}
	for (i = 0; i < t->nproofs; i++)
		if (t->proof_ns[i] == n && t->proof_id[i] == id) {
			t->proof_ns[i] = t->proof_ns[--t->nproofs];
			t->proof_id[i] = t->proof_id[t->nproofs];
			return true;
		}
	return false;
}

static int clamp_err(long long e)
{
	return e > 0 && e < NERR ? (int)e : e ? NERR - 1 : 0;
}

static struct seg_slot *seg_find(struct tally *t, int ns, int id)
{
	uint64_t key = ((uint64_t)ns << 32 | (uint32_t)id) + 1;
	uint64_t h = key * 0x9e3779b97f4a7c15ULL, i;

	for (i = 0; i < SEG_SLOTS; i++) {
		struct seg_slot *s = &t->segs[(h + i) & (SEG_SLOTS - 1)];

		if (!s->key)
			s->key = key;
		if (s->key == key)
			return s;
	}
	return NULL;
}

static void count_reason(struct tally *t, const char *reason)
{
	int i;

	for (i = 0; i < t->nreasons; i++)
		if (!strcmp(t->reasons[i].name, reason))
			break;
	if (i == t->nreasons) {
		if (t->nreasons == (int)ARRAY_SIZE(t->reasons))
			return;
		snprintf(t->reasons[i].name, sizeof(t->reasons[i].name), "%s",
			 reason);
		t->nreasons++;
	}
	t->reasons[i].n++;
}

static uint64_t reason_n(const struct tally *t, const char *reason)
{
	int i;

	for (i = 0; i < t->nreasons; i++)
		if (!strcmp(t->reasons[i].name, reason))
			return t->reasons[i].n;
	return 0;
}

static void tally_event(struct tally *t, json_object *o)
{
	const char *type = jstr(o, "type");
	bool storm = !strcmp(jstr(o, "comm"), "storm");
	int n = ns_index(t->storm, (unsigned long)jint(o, "ipcns"));
	int err = clamp_err(jint(o, "err"));
	struct ns_tally *ns;
	struct seg_slot *seg;

	if (!strcmp(type, "lost")) {
		t->lost_records += (uint64_t)jint(o, "lost");
		t->lost_total = (uint64_t)jint(o, "lost_total");
		return;
	}
	if (n < 0) {
		t->other_ns++;
		return;
	}
	ns = &t->ns[n];
	if ((!strcmp(type, "shm_create") || !strcmp(type, "shm_destroy")) &&
	    daemon_proof(t, o, n, type))
		return;
	if (!strcmp(type, "shm_create")) {
		if (!err) {
			ns->creates++;
			seg = seg_find(t, n, (int)jint(o, "id"));
			if (seg && seg->alive)
				t->twice_created++;
			if (seg)
				seg->alive = true;
		}
		if (!storm)
			return;
		if (!err) {
			ns->create_ok++;
			return;
		}
		count_reason(t, jstr(o, "reason"));
		if (!strcmp(jstr(o, "reason"), "existing_smaller"))
			ns->existing_smaller++;
		else
			ns->create_err[err]++;
		if (!strcmp(jstr(o, "reason"), "lsm_denied"))
			ns->lsm_denied[err]++;
	} else if (!strcmp(type, "shm_destroy")) {
		const char *cause = jstr(o, "cause");
		int c;

		ns->destroys++;
		for (c = 0; c < NCAUSES && strcmp(causes[c], cause); c++)
			;
		ns->cause[c]++;
		seg = seg_find(t, n, (int)jint(o, "id"));
		if (!seg || !seg->alive)
			t->destroyed_unknown++;
		if (seg)
			seg->alive = false;
	} else if (!storm) {
		return;
	} else if (!strcmp(type, "shmat")) {
		ns->shmat[err]++;
	} else if (!strcmp(type, "shm_attach")) {
		ns->attach++;
	} else if (!strcmp(type, "shm_detach")) {
		ns->detach++;
	} else if (!strcmp(type, "shmctl")) {
		long long cmd = jint(o, "cmd");

		if (cmd >= 0 && cmd < CMD_SLOTS)
			ns->shmctl[cmd][err]++;
		else
			ns->shmctl_other++;
	} else if (!strcmp(type, "sem_block")) {
		ns->sem_block++;
	} else if (!strcmp(type, "sem_wake")) {
		ns->sem_wake[err]++;
	}
}

/* What was added to the events' output since the last call. */
static void tally_more(struct tally *t)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long pos = ftell(t->f);

	clearerr(t->f);
	while ((len = getline(&line, &cap, t->f)) > 0) {
		json_object *o;

		if (line[len - 1] != '\n') {	/* not all written yet */
			fseek(t->f, pos, SEEK_SET);
			break;
		}
		pos += len;
		t->lines++;
		o = json_tokener_parse(line);
		if (!o) {
			t->unparsed++;
			continue;
		}
		tally_event(t, o);
		json_object_put(o);
	}
	free(line);
}

static uint64_t destroys_all(const struct tally *t)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < t->storm->nns; i++)
		n += t->ns[i].destroys;
	return n;
}

/* ---- the storm's counts -------------------------------------------------- */

struct counted {
	uint64_t calls, ok, err[NERR];
};

static void storm_calls(json_object *ns, const char *name, struct counted *c)
{
	json_object *calls, *op, *errs;

	memset(c, 0, sizeof(*c));
	if (!json_object_object_get_ex(ns, "calls", &calls) ||
	    !json_object_object_get_ex(calls, name, &op))
		return;
	c->calls = (uint64_t)jint(op, "calls");
	c->ok = (uint64_t)jint(op, "ok");
	if (!json_object_object_get_ex(op, "errno", &errs))
		return;
	json_object_object_foreach(errs, key, val)
		c->err[clamp_err(errno_by_name(key))] +=
			(uint64_t)json_object_get_int64(val);
}

/* Delivered events against the storm's counts; losses may explain less. */
struct compare {
	uint64_t short_by;	/* events missing: at most what was lost */
	int over;		/* more events than calls: never right */
	int said;
};

static void expect(struct compare *c, const char *what, int ns,
		   uint64_t events, uint64_t counted)
{
	if (events == counted)
		return;
	if (events < counted)
		c->short_by += counted - events;
	else
		c->over++;
	if (c->said++ < 12)
		tap_diag("  ns %d %s: %llu events, storm counted %llu", ns,
			 what, (unsigned long long)events,
			 (unsigned long long)counted);
}

/* Two kinds of events that come in pairs: losses may take either. */
static void expect_pairs(struct compare *c, const char *what, int ns,
			 uint64_t a, uint64_t b)
{
	if (a == b)
		return;
	c->short_by += a > b ? a - b : b - a;
	if (c->said++ < 12)
		tap_diag("  ns %d %s: %llu and %llu", ns, what,
			 (unsigned long long)a, (unsigned long long)b);
}

/* At most @most events: a bound, for what the storm cannot tell. */
static void expect_at_most(struct compare *c, const char *what, int ns,
			   uint64_t events, uint64_t most)
{
	if (events <= most)
		return;
	c->over++;
	if (c->said++ < 12)
		tap_diag("  ns %d %s: %llu events, at most %llu", ns, what,
			 (unsigned long long)events, (unsigned long long)most);
}

static bool compare_ok(const struct compare *c, uint64_t lost)
{
	return !c->over && c->short_by <= lost;
}

/* ---- the suite ----------------------------------------------------------- */

struct suite {
	unsigned long seed, duration, workers, pace;
	struct storm_run storm;
	struct ipcwatch_run enforce, events;
	bool enforce_up, events_up;
	int baseline_progs;
	json_object *report;	/* the storm's */
	struct tally t;
	long enforce_off;
	uint64_t denied_decisions;	/* policy_denied of the storm's */
	uint64_t audited_decisions;
	uint64_t suite_created[MAX_NS];	/* segments made by the suite */
};

static json_object *report_ns(const struct suite *s, int i)
{
	json_object *arr, *ns;

	if (!json_object_object_get_ex(s->report, "namespaces", &arr))
		return NULL;
	ns = json_object_array_get_idx(arr, i);
	return ns;
}

static void daemon_decisions(struct suite *s, struct ipcwatch_run *r)
{
	s->denied_decisions += records(r, "policy_denied", "storm", 1);
	s->audited_decisions += records(r, "policy_audit", "storm", -1);
}

/* Both daemons, before the storm. */
static bool start_watchers(struct suite *s)
{
	mkdir(CONF_DIR, 0755);
	write_file(POLICY, policy_v1);
	unlink(METRICS);
	s->enforce_up = ipcwatch_start(&s->enforce, enforce_argv, NULL, NULL);
	if (!tap_ok(s->enforce_up, "enforce_starts"))
		tap_diag("  %s", s->enforce.err ? s->enforce.err : "");
	s->events_up = ipcwatch_start(&s->events, events_argv, NULL, NULL);
	if (!tap_ok(s->events_up, "events_starts"))
		tap_diag("  %s", s->events.err ? s->events.err : "");
	return s->enforce_up && s->events_up;
}

/* SIGHUP with a changed policy in the middle of the storm. */
static void reload_midway(struct suite *s)
{
	bool ok = storm_wait_progress(&s->storm, s->duration * 35 / 100,
				      now_ms() + s->duration * 1000 + 30000);

	tap_ok(ok, "storm_reaches_reload_point");
	write_file(POLICY, policy_v2);
	kill(s->enforce.pid, SIGHUP);
	tap_ok(wait_file_has(s->enforce.out_path, &s->enforce_off,
			     "\"type\":\"reloaded\"", 20),
	       "reload_logged");
	tap_diag("storm: policy reloaded at %.1f s of the storm",
		 storm_time(&s->storm));
}

/*
 * kill -9 a little later: while no daemon runs the pinned policy still
 * refuses; started again with the same command line, it adopts.
 */
static void kill_and_restart(struct suite *s)
{
	json_object *started;
	int id;
	bool ok = storm_wait_progress(&s->storm, s->duration / 2,
				      now_ms() + s->duration * 1000 + 30000);

	tap_ok(ok, "storm_reaches_kill_point");
	ipcwatch_stop_with(&s->enforce, SIGKILL);
	tap_is(s->enforce.status, 128 + SIGKILL, "daemon_killed");
	daemon_decisions(s, &s->enforce);
	ipcwatch_free(&s->enforce);
	tap_diag("storm: daemon killed at %.1f s of the storm",
		 storm_time(&s->storm));

	id = shmget_as(1000, OVER_QUOTA);
	tap_is(id, -ENOSPC, "quota_in_force_while_daemon_dead");
	if (id >= 0) {
		s->suite_created[0]++;
		shmctl(id, IPC_RMID, NULL);
	}

	s->enforce_off = 0;
	s->enforce_up = ipcwatch_start(&s->enforce, enforce_argv, NULL, NULL);
	if (!tap_ok(s->enforce_up, "restart_starts")) {
		tap_diag("  %s", s->enforce.err ? s->enforce.err : "");
		return;
	}
	started = first_record(s->enforce.out_path, "started");
	tap_ok(started && jint(started, "adopted") == 1, "restart_adopts");
	json_object_put(started);
	tap_diag("storm: daemon running again at %.1f s of the storm",
		 storm_time(&s->storm));
}

/* Sums of /proc/sysvipc/shm of every namespace, in the daemon's scopes. */
struct truth {
	struct owners uid, gid, ipcns, all;
	long long own_segs, own_bytes, own_orphans;
	int own_sems;
	bool read;
};

static void read_truth(const struct suite *s, struct truth *t)
{
	int i, r;

	memset(t, 0, sizeof(*t));
	t->read = true;
	for (i = 0; i < s->storm.nns; i++) {
		struct ns_view v;

		if (!view_ns(s->storm.ns[i].holder, &v)) {
			t->read = false;
			continue;
		}
		for (r = 0; r < v.nrows; r++) {
			const struct shm_row *row = &v.rows[r];
			struct owner *o[4] = {
				owner_of(&t->uid, row->cuid),
				owner_of(&t->gid, row->cgid),
				owner_of(&t->ipcns, s->storm.ns[i].inum),
				owner_of(&t->all, 0),
			};
			int k;

			for (k = 0; k < 4; k++) {
				o[k]->bytes += (long long)row->size;
				o[k]->segs++;
			}
			if (i == 0) {
				t->own_segs++;
				t->own_bytes += (long long)row->size;
				/* the workers are gone: nothing attached */
				t->own_orphans += !row->nattch;
			}
		}
		if (i == 0)
			t->own_sems = v.nsems;
		free(v.rows);
	}
}

struct daemon_view {
	struct owners uid, gid, ipcns, cgroups, all;
	double segs, bytes, orphans;
};

static void read_daemon(unsigned long own_ns, struct daemon_view *d)
{
	char *prom = slurp(METRICS), sample[128];
	int i;

	metric_owners(prom, "uid", &d->uid);
	metric_owners(prom, "gid", &d->gid);
	metric_owners(prom, "ipcns", &d->ipcns);
	metric_owners(prom, "cgroup", &d->cgroups);
	memset(&d->all, 0, sizeof(d->all));
	for (i = 0; i < d->cgroups.n; i++) {
		owner_of(&d->all, 0)->bytes += d->cgroups.o[i].bytes;
		owner_of(&d->all, 0)->segs += d->cgroups.o[i].segs;
	}
	snprintf(sample, sizeof(sample),
		 "ipcwatch_shm_segments{ipcns=\"%lu\",container=\"\"}",
		 own_ns);
	d->segs = metric(prom, sample);
	snprintf(sample, sizeof(sample),
		 "ipcwatch_shm_bytes{ipcns=\"%lu\",container=\"\"}",
		 own_ns);
	d->bytes = metric(prom, sample);
	snprintf(sample, sizeof(sample),
		 "ipcwatch_shm_orphaned_segments{ipcns=\"%lu\","
		 "container=\"\"}", own_ns);
	d->orphans = metric(prom, sample);
	free(prom);
}

static int differences(const struct daemon_view *d, const struct truth *t,
		       bool say)
{
	return owners_differ("uid", &d->uid, &t->uid, say) +
	       owners_differ("gid", &d->gid, &t->gid, say) +
	       owners_differ("ipcns", &d->ipcns, &t->ipcns, say) +
	       owners_differ("all cgroups", &d->all, &t->all, say) +
	       (d->segs != t->own_segs) + (d->bytes != t->own_bytes) +
	       (d->orphans != t->own_orphans);
}

/*
 * After the storm, the holders still up: the daemon's totals and table
 * must come to equal /proc/sysvipc (the table follows the events, and a
 * resync within 10 s).
 */
static void check_end_state(struct suite *s)
{
	uint64_t end = now_ms() + 30000;
	struct daemon_view d;
	struct truth t;

	read_truth(s, &t);
	tap_ok(t.read, "sysvipc_read_in_every_namespace");
	do {
		read_daemon(s->storm.ns[0].inum, &d);
		if (!differences(&d, &t, false))
			break;
		pause_ms(200);
	} while (now_ms() < end);
	tap_ok(!owners_differ("uid", &d.uid, &t.uid, true),
	       "totals_match_sysvipc.uid");
	tap_ok(!owners_differ("gid", &d.gid, &t.gid, true),
	       "totals_match_sysvipc.gid");
	tap_ok(!owners_differ("ipcns", &d.ipcns, &t.ipcns, true),
	       "totals_match_sysvipc.ipcns");
	tap_ok(!owners_differ("all cgroups", &d.all, &t.all, true),
	       "totals_match_sysvipc.cgroup");
	tap_is((long long)d.segs, t.own_segs,
	       "daemon_table_matches_sysvipc.segments");
	tap_is((long long)d.bytes, t.own_bytes,
	       "daemon_table_matches_sysvipc.bytes");
	tap_is((long long)d.orphans, t.own_orphans,
	       "daemon_table_matches_sysvipc.orphans");
	tap_diag("storm: at the end %lld segments, %lld bytes in all "
		 "namespaces; %lld in the daemon's own",
		 t.all.n ? t.all.o[0].segs : 0, t.all.n ? t.all.o[0].bytes : 0,
		 t.own_segs);
}

/* Holders released: the storm cleans its namespace, writes its counts. */
static bool finish_storm(struct suite *s)
{
	char *text;
	int status;

	close(s->storm.in);
	if (!tap_ok(storm_wait(&s->storm, "finished", now_ms() + 60000),
		    "storm_finishes"))
		kill(s->storm.pid, SIGKILL);
	waitpid(s->storm.pid, &status, 0);
	s->storm.reaped = true;
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "storm_exits_0");
	text = slurp(STORM_OUT);
	s->report = json_tokener_parse(text);
	free(text);
	if (!tap_ok(s->report != NULL, "storm_report_is_json")) {
		text = slurp(STORM_ERR);
		tap_diag("  %s", text);
		free(text);
	}
	return s->report != NULL;
}

static uint64_t storm_creates(const struct suite *s)
{
	struct counted c;
	uint64_t n = 0;
	int i;

	for (i = 0; i < s->storm.nns; i++) {
		storm_calls(report_ns(s, i), "shmget_create", &c);
		n += c.ok + s->suite_created[i];
	}
	return n;
}

/* Everything goes: namespaces, segments, totals, programs, pins. */
static void check_all_gone(struct suite *s)
{
	uint64_t want = storm_creates(s), end = now_ms() + 60000;
	struct daemon_view d;
	struct ns_view own;
	bool empty;
	int status;
	char *err;

	/* the namespaces go in a kworker, a little after their holders */
	do {
		tally_more(&s->t);
		if (destroys_all(&s->t) + s->t.lost_total >= want)
			break;
		pause_ms(100);
	} while (now_ms() < end);
	tap_ok(destroys_all(&s->t) + s->t.lost_total >= want,
	       "every_namespace_emptied");

	tap_ok(view_ns(getpid(), &own) && own.nrows == 0 && own.nsems == 0,
	       "own_namespace_empty");
	free(own.rows);
	end = now_ms() + 20000;
	do {
		read_daemon(s->storm.ns[0].inum, &d);
		empty = !d.uid.n && !d.gid.n && !d.ipcns.n && !d.cgroups.n &&
			d.segs == 0;
		if (empty)
			break;
		pause_ms(200);
	} while (now_ms() < end);
	if (!tap_ok(empty, "no_totals_left"))
		tap_diag("  left: %d uid, %d gid, %d ipcns, %d cgroup totals, "
			 "%.0f segments in the daemon's namespace", d.uid.n,
			 d.gid.n, d.ipcns.n, d.cgroups.n, d.segs);

	ipcwatch_stop_with(&s->enforce, SIGTERM);
	s->enforce_up = false;
	tap_is(s->enforce.status, 0, "enforce_stops_0");
	tap_ok(find_event(&s->enforce, "stopped", NULL, 0, 0) != NULL,
	       "enforce_stopped_logged");
	daemon_decisions(s, &s->enforce);
	tap_ok(access(PIN_DIR, F_OK) != 0, "pins_removed");

	status = stop_quietly(&s->events, SIGINT);
	s->events_up = false;
	tap_is(status, 0, "events_stops_0");
	tally_more(&s->t);
	err = slurp(s->events.err_path);
	{
		const char *p = strstr(err, " events, ");
		unsigned long long lost = ~0ULL;

		if (p)
			lost = strtoull(p + 9, NULL, 10);
		tap_ok(lost == s->t.lost_total && lost == s->t.lost_records,
		       "events_lost_reported");
		tap_diag("storm: events %llu lines, %llu lost (%s)",
			 (unsigned long long)s->t.lines,
			 (unsigned long long)s->t.lost_total,
			 strtok(err, "\n") ? err : "");
	}
	free(err);
	tap_is(s->t.unparsed, 0, "events_all_json");
	tap_is(bpf_prog_count(), s->baseline_progs, "nothing_left_loaded");
}

static void check_counts(struct suite *s)
{
	uint64_t lost = s->t.lost_total;
	struct compare cr = { 0 }, at = { 0 }, nat = { 0 }, ctl = { 0 },
		       sem = { 0 }, des = { 0 };
	uint64_t lsm = 0;
	int i, e, k;
	static const struct { int cmd; const char *name; } cmds[] = {
		{ IPC_RMID, "shmctl_ipc_rmid" }, { IPC_SET, "shmctl_ipc_set" },
		{ IPC_STAT, "shmctl_ipc_stat" },
		{ SHM_STAT, "shmctl_shm_stat" },
		{ SHM_INFO, "shmctl_shm_info" },
	};

	for (i = 0; i < s->storm.nns; i++) {
		json_object *ns = report_ns(s, i);
		const struct ns_tally *t = &s->t.ns[i];
		struct counted c, l;
		uint64_t waits = 0;

		storm_calls(ns, "shmget_create", &c);
		storm_calls(ns, "shmget_lookup", &l);
		expect(&cr, "shm_create ok", i, t->create_ok, c.ok);
		for (e = 1; e < NERR; e++)
			if (e != EEXIST)	/* no segment made: no event */
				expect(&cr, errno_text(e), i, t->create_err[e],
				       c.err[e]);
		expect(&cr, "existing_smaller", i, t->existing_smaller,
		       l.err[EINVAL]);
		for (e = 0; e < NERR; e++)
			lsm += e == ENOMEM ? 0 : t->lsm_denied[e];

		storm_calls(ns, "shmat", &c);
		expect(&at, "shmat ok", i, t->shmat[0], c.ok);
		for (e = 1; e < NERR; e++)
			expect(&at, errno_text(e), i, t->shmat[e], c.err[e]);

		expect(&nat, "shm_attach", i, t->attach, c.ok);
		storm_calls(ns, "shmdt", &c);
		expect(&nat, "shm_detach", i, t->detach,
		       c.ok + (uint64_t)jint(ns, "exit_detaches"));

		for (k = 0; k < (int)ARRAY_SIZE(cmds); k++) {
			char what[64];

			storm_calls(ns, cmds[k].name, &c);
			snprintf(what, sizeof(what), "%s ok", cmds[k].name);
			expect(&ctl, what, i, t->shmctl[cmds[k].cmd][0], c.ok);
			for (e = 1; e < NERR; e++) {
				snprintf(what, sizeof(what), "%s %s",
					 cmds[k].name, errno_text(e));
				expect(&ctl, what, i, t->shmctl[cmds[k].cmd][e],
				       c.err[e]);
			}
		}
		expect(&ctl, "shmctl of another cmd", i, t->shmctl_other, 0);

		/*
		 * A timeout (EAGAIN without IPC_NOWAIT) is always a sleep;
		 * a success or EIDRM may or may not have slept, so those
		 * are bounds. Every sleep ends in one wake-up.
		 */
		storm_calls(ns, "semtimedop", &c);
		expect(&sem, "sem_wake EAGAIN", i, t->sem_wake[EAGAIN],
		       c.err[EAGAIN]);
		expect_at_most(&sem, "sem_wake ok", i, t->sem_wake[0], c.ok);
		expect_at_most(&sem, "sem_wake EIDRM", i, t->sem_wake[EIDRM],
			       c.err[EIDRM]);
		for (e = 0; e < NERR; e++)
			waits += t->sem_wake[e];
		expect_at_most(&sem, "sem_wake other", i,
			       waits - t->sem_wake[0] - t->sem_wake[EAGAIN] -
			       t->sem_wake[EIDRM], 0);
		expect_pairs(&sem, "sem_block, sem_wake", i, t->sem_block,
			     waits);

		storm_calls(ns, "shmget_create", &c);
		expect(&des, "created (events, anyone)", i, t->creates,
		       c.ok + s->suite_created[i]);
		expect(&des, "shm_destroy", i, t->destroys,
		       c.ok + s->suite_created[i]);
	}
	tap_ok(compare_ok(&cr, lost),
	       "events_equal_counts_plus_drops.shm_create");
	tap_ok(compare_ok(&at, lost), "events_equal_counts_plus_drops.shmat");
	tap_ok(compare_ok(&nat, lost),
	       "events_equal_counts_plus_drops.attach_detach");
	tap_ok(compare_ok(&ctl, lost), "events_equal_counts_plus_drops.shmctl");
	tap_ok(compare_ok(&sem, lost),
	       "events_equal_counts_plus_drops.sem_sleeps");
	tap_ok(compare_ok(&des, lost),
	       "events_equal_counts_plus_drops.shm_destroy");
	if (!tap_ok(s->t.twice_created + s->t.destroyed_unknown <= lost,
		    "each_segment_destroyed_once"))
		tap_diag("  %llu ids created again while alive, %llu destroyed "
			 "without a creation",
			 (unsigned long long)s->t.twice_created,
			 (unsigned long long)s->t.destroyed_unknown);
	/*
	 * Every refusal of the policy is a decision the daemons logged,
	 * those taken while none ran included, or one counted as lost.
	 */
	{
		char *prom = slurp(METRICS);
		double lost_dec = metric(prom, "ipcwatch_lost_events_total"
					 "{source=\"decisions\"}");

		free(prom);
		if (!tap_ok(s->denied_decisions <= lsm && lost_dec >= 0 &&
			    lsm - s->denied_decisions <= (uint64_t)lost_dec,
			    "decisions_equal_lsm_refusals"))
			tap_diag("  %llu denied decisions logged, %.0f lost, "
				 "%llu refusals by the LSM",
				 (unsigned long long)s->denied_decisions,
				 lost_dec, (unsigned long long)lsm);
	}
}

/* What the storm was meant to do, it did. */
static void check_workload(struct suite *s)
{
	static const char *const reasons[] = {
		"too_small", "over_shmmax", "page_overflow", "over_shmall",
		"no_ids", "existing_smaller", "lsm_denied", "file_setup",
	};
	uint64_t exits = 0, timeouts = 0, woken = 0, eidrm = 0, last_detach = 0;
	json_object *arr;
	struct counted c;
	size_t r;
	int i, missing = 0;

	tap_is(s->storm.nns, 3, "workload.three_namespaces");
	tap_ok(s->storm.nns == 3 &&
	       s->storm.ns[0].inum != s->storm.ns[1].inum &&
	       s->storm.ns[1].inum != s->storm.ns[2].inum &&
	       s->storm.ns[0].inum == ipc_ns_inum(),
	       "workload.own_namespace_and_two_made");
	tap_ok(json_object_object_get_ex(s->report, "uids", &arr) &&
	       json_object_array_length(arr) == 4, "workload.four_uids");
	for (i = 0; i < s->storm.nns; i++) {
		exits += (uint64_t)jint(report_ns(s, i), "exits");
		storm_calls(report_ns(s, i), "semtimedop", &c);
		timeouts += c.err[EAGAIN];
		woken += s->t.ns[i].sem_wake[0];
		eidrm += s->t.ns[i].sem_wake[EIDRM];
		last_detach += s->t.ns[i].cause[1];
	}
	tap_ok(exits > s->workers, "workload.creators_exit_and_respawn");
	tap_ok(timeouts > 0 && woken > 0,
	       "workload.sleepers_time_out_and_woken");
	tap_ok(eidrm > 0, "workload.sleepers_woken_by_removal");
	tap_ok(last_detach > 0, "workload.removed_while_others_attached");
	for (r = 0; r < ARRAY_SIZE(reasons); r++)
		if (!reason_n(&s->t, reasons[r])) {
			tap_diag("  no refusal for %s", reasons[r]);
			missing++;
		}
	tap_is(missing, 0, "workload.every_refusal_reason");
	tap_ok(s->denied_decisions > 0 && s->audited_decisions > 0,
	       "workload.quotas_refuse_and_audit");
}

/* Field @k of generation @i: [slot, generation, planned, done, digest]. */
static json_object *gen_field(json_object *gens, int i, int k)
{
	return json_object_array_get_idx(json_object_array_get_idx(gens, i),
					 k);
}

/* `storm --plan` with @seed over PLAN_IN: 0, or its exit status. */
static int run_plan(unsigned long seed, unsigned long pace)
{
	char seed_s[32], pace_s[32];
	pid_t pid;

	snprintf(seed_s, sizeof(seed_s), "%lu", seed);
	snprintf(pace_s, sizeof(pace_s), "%lu", pace);
	pid = fork();
	if (pid == 0) {
		int in = open(PLAN_IN, O_RDONLY);
		int out = open(PLAN_OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(in, 0);
		dup2(out, 1);
		execl(STORM_BIN, "storm", "--plan", "--seed", seed_s, "--pace",
		      pace_s, NULL);
		_exit(127);
	}
	return reap(pid);
}

/*
 * Generations whose digest (and length) --plan with @seed gives again;
 * only those with operations when @made_only.
 */
static int plan_matches(const struct suite *s, json_object *gens,
			unsigned long seed, bool made_only)
{
	char line[64], want[64];
	int i, n = (int)json_object_array_length(gens), same = 0;
	FILE *out;

	if (run_plan(seed, s->pace))
		return -1;
	out = fopen(PLAN_OUT, "r");
	for (i = 0; out && i < n && fgets(line, sizeof(line), out); i++) {
		if (made_only &&
		    json_object_get_int(gen_field(gens, i, 3)) <= 0)
			continue;
		snprintf(want, sizeof(want), "%d %s\n",
			 json_object_get_int(gen_field(gens, i, 2)),
			 json_object_get_string(gen_field(gens, i, 4)));
		same += !strcmp(line, want);
	}
	if (out)
		fclose(out);
	return same;
}

/*
 * The same seed draws the same operations: each generation the workers
 * made is drawn again, without a kernel, by --plan. Another seed draws
 * others.
 */
static void check_reproducible(struct suite *s)
{
	json_object *gens;
	int n, i, made = 0;
	FILE *in;

	if (!json_object_object_get_ex(s->report, "generations", &gens))
		return;
	n = (int)json_object_array_length(gens);
	in = fopen(PLAN_IN, "w");
	if (!in)
		exit(2);
	for (i = 0; i < n; i++) {
		fprintf(in, "%d %d %d\n",
			json_object_get_int(gen_field(gens, i, 0)),
			json_object_get_int(gen_field(gens, i, 1)),
			json_object_get_int(gen_field(gens, i, 3)));
		made += json_object_get_int(gen_field(gens, i, 3)) > 0;
	}
	fclose(in);
	tap_diag("storm: %d generations, %d with operations", n, made);
	tap_is(plan_matches(s, gens, s->seed, false), n,
	       "same_seed_same_sequence");
	tap_is(plan_matches(s, gens, s->seed + 1, true), 0,
	       "other_seed_other_sequence");
}

static void print_counts(const struct suite *s)
{
	static const char *const names[] = {
		"shmget_create", "shmget_lookup", "shmat", "shmdt",
		"shmctl_ipc_stat", "shmctl_ipc_set", "shmctl_ipc_rmid",
		"shmctl_shm_info", "shmctl_shm_stat", "semget", "semop_nowait",
		"semtimedop", "semctl_setval", "semctl_getncnt",
		"semctl_getval", "semctl_sem_info", "semctl_sem_stat",
		"semctl_ipc_rmid",
	};
	size_t k;
	int i, e;

	for (i = 0; i < s->storm.nns; i++) {
		json_object *ns = report_ns(s, i), *slots;

		json_object_object_get_ex(ns, "slots", &slots);
		tap_diag("storm: namespace %d ipcns %lu (%s): slots %s, %lld "
			 "operations, %lld worker exits", i,
			 s->storm.ns[i].inum, jstr(ns, "config"),
			 json_object_to_json_string(slots),
			 jint(ns, "operations"), jint(ns, "exits"));
	}
	for (k = 0; k < ARRAY_SIZE(names); k++) {
		struct counted sum = { 0 }, c;
		char errs[256] = "";
		size_t len = 0;

		for (i = 0; i < s->storm.nns; i++) {
			storm_calls(report_ns(s, i), names[k], &c);
			sum.calls += c.calls;
			sum.ok += c.ok;
			for (e = 0; e < NERR; e++)
				sum.err[e] += c.err[e];
		}
		for (e = 1; e < NERR && len < sizeof(errs) - 32; e++)
			if (sum.err[e])
				len += snprintf(errs + len, sizeof(errs) - len,
						" %s %llu", errno_text(e),
						(unsigned long long)sum.err[e]);
		tap_diag("storm: %-16s %7llu calls, %7llu ok,%s", names[k],
			 (unsigned long long)sum.calls,
			 (unsigned long long)sum.ok, errs);
	}
	{
		char line[512] = "";
		size_t len = 0;

		for (i = 0; i < s->t.nreasons; i++)
			len += snprintf(line + len, sizeof(line) - len,
					" %s %llu", s->t.reasons[i].name,
					(unsigned long long)s->t.reasons[i].n);
		tap_diag("storm: refusals by reason:%s", line);
	}
	tap_diag("storm: policy decisions: %llu denied, %llu audited",
		 (unsigned long long)s->denied_decisions,
		 (unsigned long long)s->audited_decisions);
}

int main(void)
{
	struct suite s = { 0 };
	uint64_t start = now_ms();
	int splats;

	setvbuf(stdout, NULL, _IOLBF, 0);
	s.seed = cmdline_opt("storm_seed", 10005);
	s.duration = cmdline_opt("storm_duration", 60);
	s.workers = cmdline_opt("storm_workers", 12);
	s.pace = cmdline_opt("storm_pace", 20);
	tap_diag("storm: seed %lu, duration %lu s, %lu workers pausing up to "
		 "%lu ms, uids 1000-1003, 3 IPC namespaces", s.seed,
		 s.duration, s.workers, s.pace);
	kmsg_open();
	fresh_ipc_ns();
	s.baseline_progs = bpf_prog_count();
	tap_ok(access(PIN_DIR, F_OK) != 0, "nothing_pinned_at_start");
	s.t.segs = calloc(SEG_SLOTS, sizeof(*s.t.segs));
	s.t.storm = &s.storm;

	if (!start_watchers(&s))
		goto out;
	s.t.f = fopen(s.events.out_path, "r");
	if (!tap_ok(s.t.f != NULL, "events_output_readable"))
		goto out;
	if (!tap_ok(storm_start(&s.storm, s.seed, s.duration, s.workers,
				s.pace) &&
		    storm_wait(&s.storm, "started", now_ms() + 60000),
		    "storm_starts"))
		goto out;
	reload_midway(&s);
	kill_and_restart(&s);
	if (!tap_ok(storm_wait(&s.storm, "stormed",
			       now_ms() + s.duration * 1000 + 60000),
		    "storm_ends_in_time"))
		goto out;
	tally_more(&s.t);
	if (s.enforce_up)
		check_end_state(&s);
	if (!finish_storm(&s))
		goto out;
	check_all_gone(&s);
	print_counts(&s);
	check_counts(&s);
	check_workload(&s);
	check_reproducible(&s);
out:
	if (s.storm.pid > 0 && !s.storm.reaped) {
		kill(s.storm.pid, SIGKILL);
		waitpid(s.storm.pid, NULL, 0);
	}
	if (s.enforce_up)
		ipcwatch_stop_with(&s.enforce, SIGTERM);
	if (s.events_up)
		stop_quietly(&s.events, SIGINT);
	splats = kmsg_splats();
	if (!tap_is(splats, 0, "no_splat") && splats < 0)
		tap_diag("  /dev/kmsg unreadable");
	tap_diag("storm: the suite took %llu s",
		 (unsigned long long)(now_ms() - start) / 1000);
	return tap_done();
}
