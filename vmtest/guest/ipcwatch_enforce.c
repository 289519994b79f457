// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch enforce and policy check, end to end: quotas refused in the
 * kernel with the documented errnos, audit mode, per-owner totals
 * against /proc after a random workload, orphan reaping, alerts and
 * --alert-exec, SIGHUP with a broken file, SIGTERM, metrics (file and
 * HTTP), syslog, bad input.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/syscall.h>

#include "ipcutil.h"
#include "ipcwatch_policy.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_enforce";

/* a directory only root can write: enforce refuses any other */
#define CONF_DIR "/etc/ipcwatch-test"
#define POLICY CONF_DIR "/policy.ini"
#define GOOD CONF_DIR "/good.ini"
#define METRICS "/tmp/ipcwatch.prom"
#define SYSLOG "/tmp/messages"
#define ALERT_OUT "/tmp/alert-exec.out"
#define PIN_DIR "/sys/fs/bpf/ipcwatch"

static void write_policy(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	if (!f)
		exit(2);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static char *slurp_file(const char *path)
{
	static char buf[1 << 18];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* ---- acting as another user ------------------------------------------------ */

struct as_user {
	uid_t uid;
	size_t size;
	int key;
	bool attach;		/* and keep attached in a child that lives */
};

/* Create a segment as @uid in a child: returns the id, or -errno. */
static int shmget_as(uid_t uid, size_t size)
{
	int fds[2], ret = -EIO;
	pid_t pid;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		int r;

		if (uid && (setgid(uid) || setuid(uid)))
			_exit(1);
		r = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
		r = r < 0 ? -errno : r;
		if (write(fds[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	reap(pid);
	if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(fds[0]);
	close(fds[1]);
	return ret;
}

/* A child of @uid that creates a segment and stays until killed. */
static pid_t creator_that_lives(uid_t uid, size_t size, int *id)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		int r;

		if (setgid(uid) || setuid(uid))
			_exit(1);
		r = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
		if (write(fds[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	if (read(fds[0], id, sizeof(*id)) != sizeof(*id))
		*id = -1;
	close(fds[0]);
	close(fds[1]);
	return pid;
}

/* Creator exits, a grandchild stays attached: returns the holder. */
static pid_t creator_gone_still_attached(uid_t uid, size_t size, int *id)
{
	int fds[2];
	pid_t pid, holder = 0;
	uint64_t deadline;
	bool attached = false;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		int r;
		pid_t h;

		if (setgid(uid) || setuid(uid))
			_exit(1);
		r = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
		h = fork();
		if (h == 0) {
			shmat(r, NULL, 0);
			for (;;)
				pause();
		}
		if (write(fds[1], &r, sizeof(r)) != sizeof(r) ||
		    write(fds[1], &h, sizeof(h)) != sizeof(h))
			_exit(1);
		_exit(0);
	}
	reap(pid);
	if (read(fds[0], id, sizeof(*id)) != sizeof(*id) ||
	    read(fds[0], &holder, sizeof(holder)) != sizeof(holder))
		*id = -1;
	close(fds[0]);
	close(fds[1]);
	/* the holder attaches: one attach, the creator's is gone */
	deadline = mono_ms() + 30000;
	while (*id >= 0 && !attached && mono_ms() < deadline) {
		struct shmid_ds ds;

		attached = shmctl(*id, IPC_STAT, &ds) == 0 &&
			   ds.shm_nattch == 1;
		if (!attached)
			usleep(50000);
	}
	tap_ok(attached, "reaper.holder_attached_creator_gone");
	return holder;
}

static bool seg_exists(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) == 0;
}

/* Whether @needle appears in the file at @path within @seconds. */
static bool wait_in_file(const char *path, const char *needle, int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (strstr(slurp_file(path), needle))
			return true;
		usleep(50000);
	}
	tap_diag("  waited %d s for '%s' in %s", seconds, needle, path);
	return false;
}

/* Whether @path exists within @seconds. */
static bool wait_for_path(const char *path, int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(50000);
	}
	return false;
}

/* ---- the daemon ------------------------------------------------------------ */

static int baseline_progs;

/* The suite's daemon with up to two more options (NULL: none). */
static bool start_enforce2(struct ipcwatch_run *r, const char *extra,
			   const char *extra2)
{
	const char *argv[12] = { "ipcwatch", "enforce", "-c", POLICY,
				 "--json", "--interval=0.2",
				 "--metrics-file=" METRICS };
	int n = 7;

	if (extra)
		argv[n++] = extra;
	if (extra2)
		argv[n++] = extra2;
	argv[n] = NULL;
	unlink(METRICS);
	return ipcwatch_start(r, argv, NULL, NULL);
}

static bool start_enforce(struct ipcwatch_run *r, const char *extra)
{
	return start_enforce2(r, extra, NULL);
}


/* The value of a metric sample, or -1. */
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

/*
 * A check: the daemon made @n whole passes (reaper, alerts, metrics)
 * after now. ipcwatch_ticks_total must reach its current value plus
 * n + 1, as the pass in progress may have read the tables before the
 * caller's last change. Checks that something did not happen follow
 * this, so they cannot pass because the daemon stood still.
 */
static bool wait_ticks(int n, const char *check)
{
	double start = -1, now = -1;
	uint64_t deadline = mono_ms() + 30000;

	while (mono_ms() < deadline) {
		now = metric(slurp_file(METRICS), "ipcwatch_ticks_total");
		if (start < 0)
			start = now;
		if (start >= 0 && now >= start + n + 1)
			break;
		usleep(50000);
	}
	if (!tap_ok(start >= 0 && now >= start + n + 1, "%s.daemon_passed_%d",
		    check, n))
		tap_diag("  ipcwatch_ticks_total %g, then %g after 30 s", start,
			 now);
	return start >= 0 && now >= start + n + 1;
}

/* Lines of the Prometheus text format, checked one by one. */
static bool valid_prometheus(const char *text, char *why, size_t len)
{
	char line[1024], seen[64][96], name[96];
	const char *p = text;
	int nseen = 0, i;

	while (*p) {
		size_t n = strcspn(p, "\n");
		double v;
		char *end;

		if (n >= sizeof(line)) {
			snprintf(why, len, "line too long");
			return false;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		if (!strncmp(line, "# HELP ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			char type[32];

			if (sscanf(line + 7, "%95s %31s", name, type) != 2 ||
			    (strcmp(type, "gauge") && strcmp(type, "counter")) ||
			    strncmp(name, "ipcwatch_", 9) ||
			    (!strcmp(type, "counter") &&
			     strcmp(name + strlen(name) - 6, "_total"))) {
				snprintf(why, len, "bad TYPE: %.200s", line);
				return false;
			}
			for (i = 0; i < nseen; i++)
				if (!strcmp(seen[i], name)) {
					snprintf(why, len, "family twice: %s",
						 name);
					return false;
				}
			if (nseen < 64)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s",
					 name);
			continue;
		}
		/* name{labels} value */
		if (strncmp(line, name, strlen(name)) ||
		    (line[strlen(name)] != '{' && line[strlen(name)] != ' ')) {
			snprintf(why, len, "sample outside its family: %.200s",
				 line);
			return false;
		}
		end = strrchr(line, ' ');
		v = end ? strtod(end + 1, &end) : 0;
		if (!end || *end || v < 0) {
			snprintf(why, len, "bad value: %.200s", line);
			return false;
		}
	}
	return nseen > 10;
}

static int count_records(const struct ipcwatch_run *r, const char *type,
			 const char *key, const char *value)
{
	int i, n = 0;

	for (i = 0; i < r->nevents; i++)
		if (!strcmp(jstr(r->events[i], "type"), type) &&
		    (!key || !strcmp(jstr(r->events[i], key), value)))
			n++;
	return n;
}

/* ---- cases ----------------------------------------------------------------- */

static void test_policy_check(void)
{
	const char *argv[] = { "ipcwatch", "policy", "check", POLICY, NULL };
	struct ipcwatch_run r;

	write_policy(POLICY, "[rule db]\nuid = 1000\nmax_segment_bytes = 64K\n"
		     "mode = enforce\n");
	tap_is(ipcwatch_exec(&r, argv, NULL, NULL), 0, "policy_check.ok");
	tap_ok(strstr(r.out, "refuse shmget() of a segment over 64 KiB with "
			     "EINVAL") != NULL, "policy_check.describes");
	ipcwatch_free(&r);

	write_policy(POLICY, "[rule db]\nuid = bob\nmax_segmnt_bytes = 1G\n");
	tap_is(ipcwatch_exec(&r, argv, NULL, NULL), 1, "policy_check.broken");
	tap_ok(strstr(r.err, POLICY ":2: uid 'bob' is not a number\n") &&
	       strstr(r.err, POLICY ":3: unknown key 'max_segmnt_bytes'"),
	       "policy_check.every_error_with_file_line");
	ipcwatch_free(&r);
}

static void test_max_segment(void)
{
	struct ipcwatch_run r;
	json_object *d;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule db]\nuid = 1000\nmax_segment_bytes = 64K\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "max_segment.starts")) {
		tap_diag("  %s", r.err);
		{
			ipcwatch_free(&r);
			return;
		}
	}
	tap_is(shmget_as(1000, 128 << 10), -EINVAL, "max_segment.over_einval");
	tap_ok(shmget_as(1000, 64 << 10) >= 0, "max_segment.at_limit_ok");
	tap_ok(shmget_as(1001, 128 << 10) >= 0, "max_segment.other_uid_ok");
	wait_ticks(2, "max_segment");
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "max_segment.sigint_exits_0");
	d = find_event(&r, "policy_denied", NULL, 0, 0);
	tap_ok(d && !strcmp(jstr(d, "limit"), "max_segment_bytes") &&
	       jint(d, "uid") == 1000 && jint(d, "size") == 128 << 10 &&
	       jint(d, "err") == EINVAL && !strcmp(jstr(d, "rule"), "db"),
	       "max_segment.denial_logged");
	tap_is(count_records(&r, "policy_denied", NULL, NULL), 1,
	       "max_segment.one_denial");
	tap_ok(wait_in_file(SYSLOG, "DENIED EINVAL", 30),
	       "max_segment.denial_in_syslog");
	tap_is(bpf_prog_count(), baseline_progs,
	       "max_segment.nothing_left_loaded");
	ipcwatch_free(&r);
}

/* shmget() of @size from a child moved into cgroup @dir first. */
static int shmget_in_cgroup(const char *dir, size_t size)
{
	char procs[256], pid_text[16];
	int go[2], res[2], ret = -EIO, fd;
	pid_t pid;

	if (pipe(go) || pipe(res))
		exit(2);
	pid = fork();
	if (pid == 0) {
		char c;
		int r;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		r = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
		r = r < 0 ? -errno : r;
		_exit(write(res[1], &r, sizeof(r)) != sizeof(r));
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(pid_text, sizeof(pid_text), "%d", pid);
	fd = open(procs, O_WRONLY);
	if (fd < 0 || write(fd, pid_text, strlen(pid_text)) < 0)
		tap_diag("cannot move %d into %s", pid, dir);
	if (fd >= 0)
		close(fd);
	if (write(go[1], "x", 1) != 1)
		exit(2);
	reap(pid);
	if (read(res[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(go[0]);
	close(go[1]);
	close(res[0]);
	close(res[1]);
	return ret;
}

static void test_cgroup_rule(void)
{
	const char *dir = "/sys/fs/cgroup/ipcwatch-enforce";
	struct ipcwatch_run r;

	fresh_ipc_ns();
	mkdir(dir, 0755);
	write_policy(POLICY, "[rule box]\ncgroup = %s\nmax_segment_bytes = 64K\n"
		     "mode = enforce\n", dir);
	if (!tap_ok(start_enforce(&r, NULL), "cgroup.starts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_is(shmget_in_cgroup(dir, 128 << 10), -EINVAL,
	       "cgroup.inside_refused_einval");
	tap_ok(shmget_as(0, 128 << 10) >= 0, "cgroup.outside_allowed");
	ipcwatch_stop(&r);
	tap_is(count_records(&r, "policy_denied", "rule", "box"), 1,
	       "cgroup.denial_logged");
	ipcwatch_free(&r);
	rmdir(dir);
}

static void test_total_and_count(const char *mode)
{
	struct ipcwatch_run r;
	bool enforce = !strcmp(mode, "enforce");
	int a, b, c, d;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule db]\nuid = 1000\nmax_total_bytes = 256K\n"
		     "mode = %s\n[rule count]\nuid = 1001\nmax_segments = 2\n"
		     "mode = %s\n", mode, mode);
	if (!tap_ok(start_enforce(&r, NULL), "%s.starts", mode))
		{
			ipcwatch_free(&r);
			return;
		}
	a = shmget_as(1000, 100 << 10);
	b = shmget_as(1000, 100 << 10);
	c = shmget_as(1000, 100 << 10);
	if (enforce) {
		tap_ok(a >= 0 && b >= 0, "enforce.total_under_limit_ok");
		tap_is(c, -ENOSPC, "enforce.total_over_enospc");
		shmctl(a, IPC_RMID, NULL);
		tap_ok(shmget_as(1000, 100 << 10) >= 0,
		       "enforce.total_credited_on_destroy");
	} else {
		tap_ok(a >= 0 && b >= 0 && c >= 0, "audit.total_never_refuses");
	}
	shmget_as(1001, 4096);
	shmget_as(1001, 4096);
	d = shmget_as(1001, 4096);
	if (enforce)
		tap_is(d, -ENOSPC, "enforce.count_over_enospc");
	else
		tap_ok(d >= 0, "audit.count_never_refuses");
	wait_ticks(2, mode);
	ipcwatch_stop(&r);
	tap_is(count_records(&r, enforce ? "policy_denied" : "policy_audit",
			     "limit", "max_total_bytes"), 1,
	       "%s.total_decision_logged", mode);
	tap_is(count_records(&r, enforce ? "policy_denied" : "policy_audit",
			     "limit", "max_segments"), 1,
	       "%s.count_decision_logged", mode);
	tap_is(count_records(&r, "policy_denied", NULL, NULL), enforce ? 2 : 0,
	       "%s.denials", mode);
	ipcwatch_free(&r);
}

/* Random creations and removals by four users; totals = /proc sums. */
static void test_totals_exact(void)
{
	struct ipcwatch_run r;
	int ids[256], nids = 0, i, u, bad = 0;
	char sample[128], *prom;
	unsigned int seed = 12345;
	double sum[4] = { 0 }, cnt[4] = { 0 };
	FILE *f;
	char line[512];

	fresh_ipc_ns();
	/* some segments exist before the daemon: they are seeded */
	for (i = 0; i < 6; i++)
		ids[nids++] = shmget_as(1000 + i % 4, 4096 * (i + 1));
	write_policy(POLICY, "[rule track]\nmax_total_bytes = 1T\n");
	if (!tap_ok(start_enforce(&r, NULL), "totals.starts"))
		{
			ipcwatch_free(&r);
			return;
		}
	for (i = 0; i < 200; i++) {
		if (nids > 0 && rand_r(&seed) % 3 == 0) {
			int k = rand_r(&seed) % nids;

			shmctl(ids[k], IPC_RMID, NULL);
			ids[k] = ids[--nids];
		} else if (nids < 256) {
			int id = shmget_as(1000 + rand_r(&seed) % 4,
					   1 + rand_r(&seed) % (256 << 10));

			if (id >= 0)
				ids[nids++] = id;
		}
	}
	wait_ticks(3, "totals_exact");
	f = fopen("/proc/sysvipc/shm", "r");
	if (!f || !fgets(line, sizeof(line), f))
		exit(2);
	while (fgets(line, sizeof(line), f)) {
		unsigned long size;
		unsigned int uid, gid, cuid;
		int key, id, cpid, lpid;
		unsigned int mode;
		unsigned long nattch;

		if (sscanf(line, "%d %d %o %lu %d %d %lu %u %u %u", &key, &id,
			   &mode, &size, &cpid, &lpid, &nattch, &uid, &gid,
			   &cuid) == 10 && cuid >= 1000 && cuid < 1004) {
			sum[cuid - 1000] += size;
			cnt[cuid - 1000]++;
		}
	}
	fclose(f);
	prom = slurp_file(METRICS);
	for (u = 0; u < 4; u++) {
		snprintf(sample, sizeof(sample),
			 "ipcwatch_owner_shm_bytes{scope=\"uid\",owner=\"%d\"}",
			 1000 + u);
		if (metric(prom, sample) != sum[u]) {
			tap_diag("  uid %d: metrics %.0f bytes, /proc %.0f",
				 1000 + u, metric(prom, sample), sum[u]);
			bad++;
		}
		snprintf(sample, sizeof(sample),
			 "ipcwatch_owner_shm_segments{scope=\"uid\",owner=\"%d\"}",
			 1000 + u);
		if (metric(prom, sample) != cnt[u])
			bad++;
	}
	tap_is(bad, 0, "totals.per_owner_equal_proc");
	ipcwatch_stop(&r);
	ipcwatch_free(&r);
}

static void test_reaper(void)
{
	struct ipcwatch_run r;
	int orphan, attached, alive, other, reused_first, reused, semid;
	pid_t holder, creator;
	uint64_t reused_at;
	char next[16];
	json_object *rec;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule reap]\nuid = 1000\nrmid_forced = yes\n"
		     "rmid_grace = 3s\n");
	if (!tap_ok(start_enforce(&r, NULL), "reaper.starts"))
		{
			ipcwatch_free(&r);
			return;
		}
	orphan = shmget_as(1000, 8192);
	holder = creator_gone_still_attached(1000, 8192, &attached);
	creator = creator_that_lives(1000, 8192, &alive);
	other = shmget_as(1001, 8192);
	reused_first = shmget_as(1000, 4096);
	/* a semaphore set whose creator is gone: never touched */
	semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	/* the reaper saw reused_first; replace it under the same id */
	wait_ticks(1, "reaper");
	shmctl(reused_first, IPC_RMID, NULL);
	snprintf(next, sizeof(next), "%d", reused_first);
	sysctl_set("shm_next_id", next);
	/*
	 * Not a synchronisation: the new segment's grace must end well
	 * after the first one's, so a reaper that kept the old timeline
	 * shows when the first orphan goes. The gap is counted in the
	 * reaper's own passes (10 at --interval=0.2), so a slow guest
	 * stretches it too.
	 */
	wait_ticks(10, "reaper_gap");
	reused = shmget_as(1000, 4096);
	reused_at = mono_ms();
	tap_is(reused, reused_first, "reaper.id_reused_on_purpose");
	/* the first grace is over: the orphan's removal record comes */
	ipcwatch_wait_record(&r, "reaped", "id", orphan, 0, 30,
			     "reaper.orphan_removal_record");
	tap_ok(!seg_exists(orphan), "reaper.orphan_removed");
	tap_ok(seg_exists(attached), "reaper.attached_kept");
	tap_ok(seg_exists(alive), "reaper.creator_alive_kept");
	tap_ok(seg_exists(other), "reaper.other_owner_kept");
	tap_ok(seg_exists(reused), "reaper.reused_id_left_alone");
	ipcwatch_wait_record(&r, "reaped", "id", reused, 0, 30,
			     "reaper.reused_id_removal_record");
	/* a lower bound only: no earlier than its own 3 s of grace */
	tap_ok(mono_ms() - reused_at >= 3000,
	       "reaper.reused_id_grace_from_its_own_creation");
	tap_ok(!seg_exists(reused), "reaper.reused_id_own_grace_then_removed");
	tap_ok(semctl(semid, 0, GETVAL) >= 0, "reaper.semaphores_untouched");
	ipcwatch_stop(&r);
	rec = find_event(&r, "reaped", "id", orphan, 0);
	tap_ok(rec && !strcmp(jstr(rec, "rule"), "reap") &&
	       jint(rec, "size") == 8192, "reaper.removal_logged");
	tap_is(count_records(&r, "reaped", NULL, NULL), 2,
	       "reaper.exactly_two_removed");
	kill(holder, SIGKILL);
	kill(creator, SIGKILL);
	waitpid(creator, NULL, 0);
	ipcwatch_free(&r);
}

/* Wait up to @seconds for segment @id to be gone. */
static bool wait_seg_gone(int id, int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (!seg_exists(id))
			return true;
		usleep(50000);
	}
	return false;
}

/*
 * The rule is the one the kernel recorded at creation: an orphan made in
 * a cgroup whose rule does not reap is not reaped by a catch-all after
 * it (matching again, with the creator gone, used to skip the cgroup
 * rule).
 */
static void test_reaper_recorded_rule(void)
{
	const char *dir = "/sys/fs/cgroup/ipcwatch-reap";
	struct ipcwatch_run r;
	int boxed, outside;

	fresh_ipc_ns();
	mkdir(dir, 0755);
	write_policy(POLICY, "[rule box]\ncgroup = %s\nmax_segments = 100\n"
		     "[rule all]\nrmid_forced = yes\n", dir);
	if (!tap_ok(start_enforce(&r, NULL), "reaper_rule.starts")) {
		ipcwatch_free(&r);
		rmdir(dir);
		return;
	}
	boxed = shmget_in_cgroup(dir, 8192);	/* its creator exits */
	outside = shmget_as(1000, 8192);
	tap_ok(boxed >= 0 && outside >= 0, "reaper_rule.orphans_made");
	tap_ok(wait_seg_gone(outside, 10), "reaper_rule.catch_all_reaps_its_own");
	/* more reaper passes over the boxed orphan */
	wait_ticks(2, "reaper_rule");
	tap_ok(seg_exists(boxed), "reaper_rule.cgroup_rule_decides");
	ipcwatch_stop(&r);
	tap_is(count_records(&r, "reaped", NULL, NULL), 1,
	       "reaper_rule.one_removal");
	shmctl(boxed, IPC_RMID, NULL);
	ipcwatch_free(&r);
	rmdir(dir);
}

/*
 * Room for 16 per-owner totals: owners beyond it are refused (enforce)
 * or allowed (audit), logged and counted; totals that fall to zero are
 * pruned, so owners that come and go take no room.
 */
static void test_owners_full(const char *mode)
{
	bool enforce = !strcmp(mode, "enforce");
	int ids[32], n = 0, first_fail = 0, i, churn_ok = 0;
	const int uids = 20;
	struct ipcwatch_run r;
	char sample[96];
	double unaccounted;
	char *prom;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule cap]\nmax_segments = 1000\nmode = %s\n",
		     mode);
	if (!tap_ok(start_enforce(&r, "--max-owners=16"),
		    "owners_full.%s.starts", mode)) {
		ipcwatch_free(&r);
		return;
	}
	/* the rule counts per uid, the only totals kept: 16 uids fit in
	 * 16, the 17th does not */
	for (i = 0; i < uids; i++) {
		ids[n] = shmget_as(2000 + (uid_t)i, 4096);
		if (ids[n] < 0) {
			if (!first_fail)
				first_fail = ids[n];
			continue;
		}
		n++;
	}
	if (enforce) {
		tap_is(n, 16, "owners_full.enforce.sixteen_owners_fit");
		tap_is(first_fail, -ENOSPC, "owners_full.enforce.refused_enospc");
	} else {
		tap_is(n, uids, "owners_full.audit.all_allowed");
	}
	for (i = 0; i < n; i++)
		shmctl(ids[i], IPC_RMID, NULL);
	/* all gone: their totals pruned, new owners fit again */
	for (i = 0; i < 40; i++) {
		int id = shmget_as(3000 + (uid_t)i, 4096);

		if (id >= 0) {
			churn_ok++;
			shmctl(id, IPC_RMID, NULL);
		}
	}
	tap_is(churn_ok, 40, "owners_full.%s.pruned_owners_take_no_room",
	       mode);
	ipcwatch_stop(&r);
	tap_is(count_records(&r, enforce ? "policy_denied" : "policy_audit",
			     "limit", "accounting"), uids - 16,
	       "owners_full.%s.each_logged", mode);
	prom = slurp_file(METRICS);
	snprintf(sample, sizeof(sample),
		 "ipcwatch_policy_unaccounted_total{action=\"%s\"}",
		 enforce ? "denied" : "allowed");
	unaccounted = metric(prom, sample);
	tap_is((int)unaccounted, uids - 16, "owners_full.%s.counted", mode);
	ipcwatch_free(&r);
}

/*
 * 2^63 bytes would be a negative charge: over any max_total_bytes, and
 * the totals stay as they were.
 */
static void test_huge_request(void)
{
	struct ipcwatch_run r;
	json_object *rec;
	char *prom;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule db]\nuid = 1000\nmax_total_bytes = 1G\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "huge.starts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_is(shmget_as(1000, (size_t)1 << 63), -ENOSPC,
	       "huge.refused_by_the_total");
	tap_ok(shmget_as(1000, 4096) >= 0, "huge.small_one_still_fits");
	wait_ticks(2, "huge");
	ipcwatch_stop(&r);
	tap_is(count_records(&r, "policy_denied", "limit", "max_total_bytes"),
	       1, "huge.logged");
	rec = find_event(&r, "policy_denied", "uid", 1000, 0);
	tap_ok(rec && juint(rec, "size") == 1ULL << 63,
	       "huge.logged_with_its_size");
	prom = slurp_file(METRICS);
	tap_is((long long)metric(prom, "ipcwatch_owner_shm_bytes{scope=\"uid\","
				  "owner=\"1000\"}"), 4096,
	       "huge.total_not_negative");
	ipcwatch_free(&r);
}

static void test_alerts(void)
{
	struct ipcwatch_run r;
	char *out;
	int id;

	fresh_ipc_ns();
	unlink(ALERT_OUT);
	write_policy(POLICY, "[rule big]\nuid = 1000\n"
		     "alert_segment_bytes = 1M\nalert_owner_bytes = 1%%\n");
	if (!tap_ok(start_enforce(&r, "--alert-exec=/tests/alert_sink"),
		    "alerts.starts"))
		{
			ipcwatch_free(&r);
			return;
		}
	id = shmget_as(1000, 2 << 20);
	shmget_as(1000, 12 << 20);	/* uid 1000 now holds >1% of 1 GiB */
	shmget_as(1001, 4 << 20);	/* another owner: no alert */
	wait_ticks(4, "alerts");
	ipcwatch_stop(&r);
	tap_ok(find_event(&r, "alert", "id", id, 0) != NULL,
	       "alerts.segment_alert");
	tap_is(count_records(&r, "alert", "kind", "segment"), 2,
	       "alerts.each_big_segment_once");
	tap_is(count_records(&r, "alert", "kind", "owner"), 1,
	       "alerts.owner_alert_on_percent");
	out = slurp_file(ALERT_OUT);
	tap_ok(strstr(out, "\"type\":\"alert\"") &&
	       strstr(out, "\"kind\":\"owner\""),
	       "alerts.alert_exec_gets_json_on_stdin");
	ipcwatch_free(&r);
}

static void test_reload_and_term(void)
{
	struct ipcwatch_run r;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 1\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "reload.starts"))
		{
			ipcwatch_free(&r);
			return;
		}
	shmget_as(1000, 4096);
	tap_is(shmget_as(1000, 4096), -ENOSPC, "reload.first_policy_enforced");
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = lots\n");
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reload_failed", NULL, 0, 0, 30,
			     "reload.broken_file_answered");
	tap_is(shmget_as(1000, 4096), -ENOSPC,
	       "reload.broken_file_keeps_old_policy");
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 3\n"
		     "mode = enforce\n");
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reloaded", NULL, 0, 0, 30,
			     "reload.first_reload_answered");
	tap_ok(shmget_as(1000, 4096) >= 0, "reload.new_policy_in_force");
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 1\n"
		     "mode = enforce\n");
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reloaded", NULL, 0, 1, 30,
			     "reload.second_reload_answered");
	tap_is(shmget_as(1000, 4096), -ENOSPC, "reload.refused_again");
	ipcwatch_stop_with(&r, SIGTERM);
	tap_is(r.status, 0, "term.exits_0");
	tap_is(bpf_prog_count(), baseline_progs, "term.nothing_left_attached");
	tap_ok(shmget_as(1000, 4096) >= 0, "term.refused_shmget_now_succeeds");
	tap_ok(find_event(&r, "reload_failed", NULL, 0, 0) &&
	       strstr(jstr(find_event(&r, "reload_failed", NULL, 0, 0),
			   "message"), "max_segments 'lots'"),
	       "reload.failure_says_why");
	tap_is(count_records(&r, "reloaded", NULL, NULL), 2,
	       "reload.reloads_logged");
	tap_ok(find_event(&r, "stopped", NULL, 0, 0) != NULL,
	       "term.stopped_logged");
	ipcwatch_free(&r);
}

static char *http_get(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	static char resp[1 << 16];
	const char *req = "GET /metrics HTTP/1.0\r\n\r\n";
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	resp[0] = '\0';
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    write(fd, req, strlen(req)) < 0) {
		if (fd >= 0)
			close(fd);
		return resp;
	}
	while ((n = read(fd, resp + len, sizeof(resp) - 1 - len)) > 0)
		len += (size_t)n;
	resp[len] = '\0';
	close(fd);
	return resp;
}

static void test_metrics(void)
{
	struct ipcwatch_run r;
	char why[256], *prom, *body;
	int i;

	fresh_ipc_ns();
	/* max_segments makes per-uid totals kept, and exported */
	write_policy(POLICY, "[rule db]\nuid = 1000\nmax_segment_bytes = 64K\n"
		     "max_segments = 1000\nmode = enforce\n");
	if (!tap_ok(start_enforce(&r, "--metrics-listen=127.0.0.1:9477"),
		    "metrics.starts"))
		{
			ipcwatch_free(&r);
			return;
		}
	for (i = 0; i < 3; i++)
		shmget_as(1000, 4096);
	shmget_as(1000, 1 << 20);	/* denied */
	wait_ticks(3, "metrics");
	prom = slurp_file(METRICS);
	tap_ok(valid_prometheus(prom, why, sizeof(why)),
	       "metrics.file_is_prometheus_text");
	{
		char sample[96];

		snprintf(sample, sizeof(sample),
			 "ipcwatch_shm_segments{ipcns=\"%lu\",container=\"\"}",
			 ipc_ns_inum());
		tap_is((long long)metric(prom, sample), 3,
		       "metrics.segments_value");
	}
	tap_is((long long)metric(prom, "ipcwatch_policy_decisions_total{rule="
				 "\"db\",limit=\"max_segment_bytes\","
				 "action=\"denied\"}"), 1,
	       "metrics.denials_counted");
	tap_is((long long)metric(prom, "ipcwatch_owner_shm_segments{scope="
				 "\"uid\",owner=\"1000\"}"), 3,
	       "metrics.owner_segments");
	body = strstr(http_get(9477), "\r\n\r\n");
	tap_ok(body && valid_prometheus(body + 4, why, sizeof(why)),
	       "metrics.http_is_prometheus_text");
	tap_ok(body && strstr(body, "ipcwatch_policy_decisions_total{rule="
			      "\"db\",limit=\"max_segment_bytes\","
			      "action=\"denied\"} 1\n"),
	       "metrics.http_values");
	ipcwatch_stop(&r);
	ipcwatch_free(&r);
}

static void as_nobody(void *arg)
{
	(void)arg;
	if (setgid(65534) || setuid(65534))
		_exit(126);
}

static void test_bad_input(void)
{
	static const struct {
		const char *name;
		const char *argv[8];
		run_setup_fn setup;
		int status;
		const char *says;
	} cases[] = {
		{ "no_config", { "ipcwatch", "enforce" }, NULL, 2,
		  "-c FILE is required" },
		{ "broken_policy", { "ipcwatch", "enforce", "-c", POLICY },
		  NULL, 1, POLICY ":2: uid 'x' is not a number" },
		{ "relative_alert_exec", { "ipcwatch", "enforce", "-c",
		  GOOD, "--alert-exec=alert_sink" }, NULL, 2,
		  "not an executable absolute path" },
		{ "bad_listen", { "ipcwatch", "enforce", "-c", GOOD,
		  "--metrics-listen=nowhere" }, NULL, 2,
		  "--metrics-listen 'nowhere'" },
		{ "missing_policy", { "ipcwatch", "enforce", "-c",
		  "/tmp/none.ini" }, NULL, 1, "/tmp/none.ini: No such file" },
		{ "bpf_not_permitted", { "ipcwatch", "enforce", "-c",
		  GOOD }, as_nobody, 1, "BPF not permitted" },
	};
	size_t i;

	write_policy(POLICY, "[rule a]\nuid = x\n");
	write_policy(GOOD, "[rule a]\nmax_segments = 9\n");
	chmod(GOOD, 0644);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct ipcwatch_run r;

		ipcwatch_exec(&r, cases[i].argv, cases[i].setup, NULL);
		tap_is(r.status, cases[i].status, "bad_input.%s.exit_status",
		       cases[i].name);
		if (!tap_ok(strstr(r.err, cases[i].says) &&
			    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
			    "bad_input.%s.one_line", cases[i].name))
			tap_diag("  stderr: %s", r.err);
		ipcwatch_free(&r);
	}
	tap_is(bpf_prog_count(), baseline_progs,
	       "bad_input.nothing_left_loaded");
}

/* ---- surviving the daemon -------------------------------------------------- */

/* Whether @needle appears in what a running daemon printed, within @s. */
static bool wait_in_output(const struct ipcwatch_run *r, const char *needle,
			   int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (strstr(slurp_file(r->out_path), needle))
			return true;
		usleep(50000);
	}
	return false;
}

/* Whether the daemon exited within @seconds (it is then collected). */
static bool wait_exit(struct ipcwatch_run *r, int seconds)
{
	siginfo_t si;
	int i;

	for (i = 0; i < seconds * 20; i++) {
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PID, (id_t)r->pid, &si,
			    WEXITED | WNOHANG | WNOWAIT) && si.si_pid) {
			ipcwatch_stop_with(r, 0);
			return true;
		}
		usleep(50000);
	}
	return false;
}

/* Segments and bytes of @uid in this namespace, from /proc/sysvipc/shm. */
static void sysvipc_uid(uid_t uid, long long *segs, long long *bytes)
{
	FILE *f = fopen("/proc/sysvipc/shm", "r");
	char line[512];

	*segs = *bytes = 0;
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		long long key, id, perms, size, cpid, lpid, nattch, u;

		if (sscanf(line, "%lld %lld %llo %lld %lld %lld %lld %lld",
			   &key, &id, &perms, &size, &cpid, &lpid, &nattch,
			   &u) == 8 && u == (long long)uid) {
			(*segs)++;
			*bytes += size;
		}
	}
	fclose(f);
}

/* Whether the metrics file says @value for @sample, within @seconds. */
static bool wait_metric(const char *sample, double value, int seconds)
{
	int i;

	for (i = 0; i < seconds * 20; i++) {
		if (metric(slurp_file(METRICS), sample) == value)
			return true;
		usleep(50000);
	}
	return false;
}

static int run_stop(struct ipcwatch_run *r)
{
	const char *argv[] = { "ipcwatch", "enforce", "--stop", NULL };

	return ipcwatch_exec(r, argv, NULL, NULL);
}

/*
 * kill -9 leaves the quotas in force (pinned), charging and crediting
 * while no daemon runs; a restart adopts them with exact totals; a
 * second daemon and a different --max-owners are refused; --stop
 * detaches everything, and says so when there is nothing to stop.
 */
static void test_survive_kill9(void)
{
	struct ipcwatch_run r, again, stop;
	long long segs, bytes;
	char sample[128];
	int a, b;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule two]\nuid = 1000\nmax_segments = 2\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "pin.starts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_ok(access(PIN_DIR "/maps/pin_info", F_OK) == 0 &&
	       access(PIN_DIR "/links", F_OK) == 0, "pin.pinned_in_bpffs");
	a = shmget_as(1000, 8192);
	tap_ok(a >= 0, "pin.first_segment");
	ipcwatch_stop_with(&r, SIGKILL);
	tap_is(r.status, 128 + SIGKILL, "pin.daemon_killed");
	ipcwatch_free(&r);

	tap_ok(shmget_as(1000, 4096) >= 0, "pin.charged_while_dead");
	tap_is(shmget_as(1000, 4096), -ENOSPC, "pin.quota_in_force_after_kill9");
	shmctl(a, IPC_RMID, NULL);
	b = shmget_as(1000, 4096);
	tap_ok(b >= 0, "pin.credited_while_dead");
	tap_is(shmget_as(1000, 4096), -ENOSPC, "pin.refused_again_while_dead");

	tap_ok(!start_enforce(&again, "--max-owners=16") && again.status == 1 &&
	       strstr(again.err, "--max-owners 65536"),
	       "pin.adopt_refuses_other_max_owners");
	ipcwatch_free(&again);
	tap_is(shmget_as(1000, 4096), -ENOSPC, "pin.refused_start_changes_nothing");

	if (!tap_ok(start_enforce(&r, NULL), "pin.restart_adopts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_ok(wait_in_output(&r, "\"adopted\":true", 10), "pin.started_says_adopted");
	sysvipc_uid(1000, &segs, &bytes);
	tap_is(segs, 2, "pin.two_segments_in_sysvipc");
	snprintf(sample, sizeof(sample),
		 "ipcwatch_owner_shm_segments{scope=\"uid\",owner=\"1000\"}");
	tap_ok(wait_metric(sample, (double)segs, 10),
	       "pin.adopted_segments_exact");
	snprintf(sample, sizeof(sample),
		 "ipcwatch_owner_shm_bytes{scope=\"uid\",owner=\"1000\"}");
	tap_ok(wait_metric(sample, (double)bytes, 10),
	       "pin.adopted_bytes_exact");
	tap_is(shmget_as(1000, 4096), -ENOSPC, "pin.adopted_enforces");
	tap_ok(wait_in_output(&r, "\"policy_denied\"", 10),
	       "pin.adopted_decisions_logged");

	tap_ok(!start_enforce(&again, NULL) && again.status == 1 &&
	       strstr(again.err, "holds the policy pinned in " PIN_DIR),
	       "pin.second_daemon_refused");
	ipcwatch_free(&again);

	tap_is(run_stop(&stop), 0, "stop.exits_0");
	tap_ok(strstr(stop.err, "stopped pid") != NULL, "stop.names_the_daemon");
	ipcwatch_free(&stop);
	tap_ok(wait_exit(&r, 15), "stop.daemon_leaves");
	tap_is(r.status, 0, "stop.daemon_exits_0");
	tap_ok(find_event(&r, "stopped", NULL, 0, 0) != NULL,
	       "stop.stopped_logged");
	tap_ok(access(PIN_DIR, F_OK) != 0, "stop.pins_removed");
	tap_is(bpf_prog_count(), baseline_progs, "stop.nothing_left_attached");
	tap_ok(shmget_as(1000, 4096) >= 0, "stop.quota_detached");
	tap_is(run_stop(&stop), 0, "stop.nothing_to_stop_exits_0");
	tap_ok(strstr(stop.err, "nothing pinned in " PIN_DIR) != NULL,
	       "stop.nothing_to_stop_says_so");
	ipcwatch_free(&stop);
	ipcwatch_free(&r);
}

/*
 * Make the pins look as a daemon killed during its start leaves them:
 * pinned, but never marked ready (its totals were never seeded).
 */
static int pins_unready(void)
{
	struct ipcw_pin_info info;
	union bpf_attr attr;
	__u32 zero = 0;
	int fd, ret;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (__u64)(unsigned long)PIN_DIR "/maps/pin_info";
	fd = (int)syscall(SYS_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)fd;
	attr.key = (__u64)(unsigned long)&zero;
	attr.value = (__u64)(unsigned long)&info;
	ret = (int)syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr));
	tap_ok(!ret && info.ready == 1, "unfinished.first_start_marked_ready");
	if (!ret) {
		info.ready = 0;
		ret = (int)syscall(SYS_bpf, BPF_MAP_UPDATE_ELEM, &attr,
				   sizeof(attr));
	}
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * A daemon that died between pinning and seeding left totals that miss
 * what existed before it: the next start removes those pins, says so,
 * and starts fresh, seeding again; adopting them would undercount.
 */
static void test_unfinished_pins(void)
{
	struct ipcwatch_run r;
	int before;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule two]\nuid = 1000\nmax_segments = 2\n"
		     "mode = enforce\n");
	before = shmget_as(1000, 4096);
	tap_ok(before >= 0, "unfinished.segment_before_start");
	if (!tap_ok(start_enforce(&r, NULL), "unfinished.starts")) {
		ipcwatch_free(&r);
		return;
	}
	ipcwatch_stop_with(&r, SIGKILL);
	ipcwatch_free(&r);
	tap_is(pins_unready(), 0, "unfinished.pins_made_unready");

	if (!tap_ok(start_enforce(&r, NULL), "unfinished.restarts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_ok(wait_in_output(&r, "\"type\":\"pins_discarded\"", 10),
	       "unfinished.discard_logged");
	tap_ok(wait_in_output(&r, "\"adopted\":false", 10),
	       "unfinished.fresh_start_not_adopted");
	tap_ok(wait_in_output(&r, "1 existing segments charged", 10),
	       "unfinished.existing_segment_seeded_again");
	tap_ok(shmget_as(1000, 4096) >= 0, "unfinished.second_segment_fits");
	tap_is(shmget_as(1000, 4096), -ENOSPC,
	       "unfinished.quota_counts_the_segment_before");
	ipcwatch_stop(&r);
	tap_ok(access(PIN_DIR, F_OK) != 0, "unfinished.stop_removes_pins");
	ipcwatch_free(&r);
	shmctl(before, IPC_RMID, NULL);
}

/*
 * Started in audit mode with existing segments it could not charge
 * (the totals full), the daemon refuses a reload to an enforcing policy,
 * as it refuses such a start: the totals would let quotas be passed.
 */
static void test_unseeded_reload(void)
{
	struct ipcwatch_run r, again;
	int ids[20], i;

	fresh_ipc_ns();
	/* one per-uid total each: 16 fit in --max-owners=16, 4 do not */
	for (i = 0; i < 20; i++)
		ids[i] = shmget_as(2100 + (uid_t)i, 4096);
	write_policy(POLICY, "[rule cap]\nmax_segments = 1000\n"
		     "mode = audit\n");
	if (!tap_ok(start_enforce(&r, "--max-owners=16"),
		    "unseeded.audit_starts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_ok(wait_in_output(&r, "16 existing segments charged", 10),
	       "unseeded.sixteen_seeded");
	write_policy(POLICY, "[rule cap]\nmax_segments = 1000\n"
		     "mode = enforce\n");
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reload_failed", NULL, 0, 0, 30,
			     "unseeded.enforcing_reload_refused");
	tap_ok(wait_in_output(&r, "4 existing segments cannot be charged", 5),
	       "unseeded.refusal_says_why");

	/* killed, then started again enforcing: the adoption refuses,
	 * and leaves the audit policy in force, unchanged */
	ipcwatch_stop_with(&r, SIGKILL);
	tap_is(count_records(&r, "reloaded", NULL, NULL), 0,
	       "unseeded.not_reloaded");
	ipcwatch_free(&r);
	tap_ok(!start_enforce(&again, "--max-owners=16") &&
	       again.status == 1 &&
	       strstr(again.err, "4 existing segments cannot be charged"),
	       "unseeded.enforcing_adoption_refused");
	ipcwatch_free(&again);
	write_policy(POLICY, "[rule cap]\nmax_segments = 1\n"
		     "mode = enforce\n");
	tap_ok(!start_enforce(&again, "--max-owners=16") &&
	       again.status == 1, "unseeded.tight_adoption_refused");
	ipcwatch_free(&again);
	i = shmget_as(2100, 4096);
	tap_ok(i >= 0, "unseeded.refused_adoption_left_audit_in_force");
	if (i >= 0)
		shmctl(i, IPC_RMID, NULL);
	tap_is(run_stop(&again), 0, "unseeded.stop_exits_0");
	ipcwatch_free(&again);
	for (i = 0; i < 20; i++)
		shmctl(ids[i], IPC_RMID, NULL);
}

/*
 * Totals are kept only in the scopes the rules count in: a per-uid
 * policy makes no gid, cgroup or namespace totals; a reload that would
 * count per gid is refused (no totals to count from), and the old
 * policy stays in force.
 */
static void test_kept_scopes(void)
{
	struct ipcwatch_run r;
	char *prom;
	int id;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule two]\nuid = 1000\nmax_segments = 2\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "scopes.starts")) {
		ipcwatch_free(&r);
		return;
	}
	id = shmget_as(1000, 4096);
	tap_ok(id >= 0, "scopes.segment");
	wait_ticks(3, "scopes_metrics");
	prom = slurp_file(METRICS);
	tap_ok(prom && strstr(prom, "ipcwatch_owner_shm_segments{scope=\"uid\","
				    "owner=\"1000\"} 1"),
	       "scopes.uid_total_kept");
	tap_ok(prom && !strstr(prom, "{scope=\"gid\"") &&
	       !strstr(prom, "{scope=\"cgroup\"") &&
	       !strstr(prom, "{scope=\"ipcns\""),
	       "scopes.no_totals_nobody_counts");
	write_policy(POLICY, "[rule two]\nuid = 1000\nmax_segments = 2\n"
		     "mode = enforce\n[rule g]\naccount = gid\n"
		     "max_total_bytes = 1G\n");
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reload_failed", NULL, 0, 0, 30,
			     "scopes.reload_needing_a_new_scope_refused");
	tap_ok(wait_in_output(&r, "counts per gid", 5),
	       "scopes.refusal_names_the_scope");
	tap_ok(shmget_as(1000, 4096) >= 0, "scopes.second_segment_fits");
	tap_is(shmget_as(1000, 4096), -ENOSPC, "scopes.old_policy_in_force");
	ipcwatch_stop(&r);
	ipcwatch_free(&r);
	shmctl(id, IPC_RMID, NULL);
}

/* Whether process @pid is an ipcwatch that blocks SIGHUP. */
static bool blocks_hup(int pid)
{
	char path[64], comm[32] = "", *blk;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	if (strcmp(comm, "ipcwatch\n"))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	blk = strstr(slurp_file(path), "SigBlk:\t");
	/* SIGHUP is bit 0 of the mask */
	return blk && (strtoull(blk + 8, NULL, 16) & 1);
}

/*
 * Until killed: SIGHUP every ipcwatch that blocks it; to @fd, the BPF
 * program count at the first one, then the running number sent.
 */
static void hup_blocked_daemons(int fd)
{
	int n = 0, progs, pid, self = getpid();

	for (;;) {
		/* pids are handed out in order: the daemon comes after us */
		for (pid = self + 1; pid < self + 64; pid++) {
			if (!blocks_hup(pid))
				continue;
			if (!n) {
				progs = bpf_prog_count();
				if (write(fd, &progs, sizeof(progs)) < 0)
					_exit(1);
			}
			kill(pid, SIGHUP);
			n++;
			if (write(fd, &n, sizeof(n)) < 0)
				_exit(1);
		}
		usleep(2000);
	}
}

/*
 * SIGHUPs sent from the moment the daemon blocks them (before any BPF
 * is loaded) until it runs: it survives, and reloads once running.
 */
static void test_sighup_during_start(void)
{
	struct ipcwatch_run r;
	int fds[2], sent = 0, early = 0;
	pid_t hupper;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 1\n"
		     "mode = enforce\n");
	if (pipe(fds))
		exit(2);
	hupper = fork();
	if (hupper == 0) {
		close(fds[0]);
		hup_blocked_daemons(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	tap_ok(start_enforce(&r, NULL), "sighup_start.starts");
	kill(hupper, SIGKILL);
	reap(hupper);
	if (read(fds[0], &early, sizeof(early)) == sizeof(early))
		while (read(fds[0], &sent, sizeof(sent)) == sizeof(sent))
			;
	close(fds[0]);
	tap_ok(sent > 0, "sighup_start.hups_sent_during_start");
	tap_is(early, baseline_progs, "sighup_start.first_hup_before_bpf_loaded");
	tap_ok(wait_in_output(&r, "\"reloaded\"", 10),
	       "sighup_start.reloads_once_running");
	tap_ok(kill(r.pid, 0) == 0 && !wait_exit(&r, 0), "sighup_start.survives");
	shmget_as(1000, 4096);
	tap_is(shmget_as(1000, 4096), -ENOSPC, "sighup_start.enforces");
	ipcwatch_stop_with(&r, SIGTERM);
	tap_is(r.status, 0, "sighup_start.term_exits_0");
	tap_ok(access(PIN_DIR, F_OK) != 0, "sighup_start.term_removes_pins");
	ipcwatch_free(&r);
}

/*
 * A table that cannot be read (an empty file bound over it) is logged
 * once and retried: the daemon keeps enforcing and recovers.
 */
static void test_transient_read_error(void)
{
	struct ipcwatch_run r;
	int fd;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 1\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "read_error.starts")) {
		ipcwatch_free(&r);
		return;
	}
	fd = open("/tmp/empty", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	tap_is(mount("/tmp/empty", "/proc/sysvipc/sem", NULL, MS_BIND, NULL),
	       0, "read_error.table_hidden");
	tap_ok(wait_in_output(&r, "/proc/sysvipc/sem: empty (retried", 10),
	       "read_error.logged");
	tap_ok(!wait_exit(&r, 1), "read_error.not_fatal");
	shmget_as(1000, 4096);
	tap_is(shmget_as(1000, 4096), -ENOSPC, "read_error.still_enforcing");
	umount2("/proc/sysvipc/sem", MNT_DETACH);
	tap_ok(wait_in_output(&r, "\"recovered\"", 10), "read_error.recovers");
	tap_ok(wait_metric("ipcwatch_read_errors_total", 0, 0) == false &&
	       metric(slurp_file(METRICS), "ipcwatch_read_errors_total") >= 1,
	       "read_error.counted");
	ipcwatch_stop_with(&r, SIGTERM);
	tap_is(r.status, 0, "read_error.exits_0");
	tap_is(count_records(&r, "error", NULL, NULL), 1,
	       "read_error.said_once");
	ipcwatch_free(&r);
}

/*
 * A namespace that cannot be read at the start would never be seeded:
 * its owners' older segments would be missing from their totals. The
 * start is refused with one line, and nothing is left loaded.
 */
static void test_unreadable_at_start(void)
{
	const char *argv[] = { "ipcwatch", "enforce", "-c", POLICY, "--json",
			       NULL };
	struct ipcwatch_run r;
	int fd;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 1\n"
		     "mode = enforce\n");
	tap_ok(shmget_as(1000, 4096) >= 0, "unreadable_start.older_segment");
	fd = open("/tmp/empty", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	tap_is(mount("/tmp/empty", "/proc/sysvipc/shm", NULL, MS_BIND, NULL),
	       0, "unreadable_start.table_hidden");
	/* true: it started watching, and is stopped */
	if (!tap_ok(!ipcwatch_start(&r, argv, NULL, NULL),
		    "unreadable_start.does_not_start"))
		ipcwatch_stop_with(&r, SIGTERM);
	umount2("/proc/sysvipc/shm", MNT_DETACH);
	tap_is(r.status, 1, "unreadable_start.refused");
	tap_ok(strstr(r.err, "ipcwatch enforce: ") &&
	       strstr(r.err, "its segments cannot be charged") &&
	       strstr(r.err, "/proc/sysvipc/shm"),
	       "unreadable_start.says_why");
	if (!strstr(r.err, "cannot be charged"))
		tap_diag("stderr: %s", r.err);
	tap_is(bpf_prog_count(), baseline_progs,
	       "unreadable_start.nothing_left_attached");
	tap_ok(access(PIN_DIR, F_OK) != 0, "unreadable_start.nothing_pinned");
	ipcwatch_free(&r);
}

/* ---- every IPC namespace ------------------------------------------------ */

/*
 * A process in an IPC namespace of its own, doing what it is told on a
 * pipe: 'c' creates a 4 KiB segment as uid 1001 (the id or -errno back),
 * 'e' + id says whether that segment exists there.
 */
struct ns_agent {
	pid_t pid;
	int cmd, res;
	unsigned long inum;
	int orphan;		/* uid 1000's, its creator gone */
	int kept;		/* uid 1001's, 1 MiB */
};

static bool agent_start(struct ns_agent *a)
{
	int cmd[2], res[2];
	char path[64];
	struct stat st;

	if (pipe(cmd) || pipe(res))
		return false;
	a->pid = fork();
	if (a->pid == 0) {
		int v[2], id;
		char c;

		close(cmd[1]);
		close(res[0]);
		if (unshare(CLONE_NEWIPC))
			_exit(3);
		v[0] = shmget_as(1000, 8192);
		v[1] = shmget_as(1001, 1 << 20);
		if (write(res[1], v, sizeof(v)) != sizeof(v))
			_exit(4);
		while (read(cmd[0], &c, 1) == 1) {
			if (c == 'c') {
				id = shmget_as(1001, 4096);
			} else if (c == 'e' &&
				   read(cmd[0], &id, sizeof(id)) == sizeof(id)) {
				id = seg_exists(id);
			} else {
				break;
			}
			if (write(res[1], &id, sizeof(id)) != sizeof(id))
				break;
		}
		_exit(0);
	}
	close(cmd[0]);
	close(res[1]);
	a->cmd = cmd[1];
	a->res = res[0];
	{
		int v[2];

		if (read(a->res, v, sizeof(v)) != sizeof(v))
			return false;
		a->orphan = v[0];
		a->kept = v[1];
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", a->pid);
	if (stat(path, &st))
		return false;
	a->inum = st.st_ino;
	return a->orphan >= 0 && a->kept >= 0;
}

static int agent_ask(struct ns_agent *a, char c, int id)
{
	int r = -EIO;

	if (write(a->cmd, &c, 1) != 1 ||
	    (c == 'e' && write(a->cmd, &id, sizeof(id)) != sizeof(id)) ||
	    read(a->res, &r, sizeof(r)) != sizeof(r))
		return -EIO;
	return r;
}

static void agent_stop(struct ns_agent *a)
{
	if (a->pid <= 0)
		return;
	close(a->cmd);
	close(a->res);
	kill(a->pid, SIGKILL);
	reap(a->pid);
	a->pid = 0;
}

/*
 * enforce covers every namespace, not only its own: what another one
 * held before the start is seeded into the quotas, its orphans are
 * reaped there, its metrics carry its ipcns (within the series bound),
 * and its teardown is logged with what it freed.
 */
static void test_all_namespaces(void)
{
	struct ns_agent a = { 0 };
	struct ipcwatch_run r;
	char sample[128], *prom;
	json_object *rec;
	double nns;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule reap]\nuid = 1000\nrmid_forced = yes\n"
		     "rmid_grace = 1s\n\n[rule quota]\nuid = 1001\n"
		     "max_segments = 2\nmode = enforce\n");
	if (!tap_ok(agent_start(&a), "all_ns.agent")) {
		agent_stop(&a);
		return;
	}
	if (!tap_ok(start_enforce(&r, "--metrics-max-namespaces=1"),
		    "all_ns.starts")) {
		ipcwatch_free(&r);
		agent_stop(&a);
		return;
	}
	/* its segments were seeded: one more for uid 1001, then full */
	tap_ok(agent_ask(&a, 'c', 0) >= 0, "all_ns.quota_room_for_one");
	tap_is(agent_ask(&a, 'c', 0), -ENOSPC, "all_ns.quota_seeded_there");
	ipcwatch_wait_record(&r, "reaped", "id", a.orphan, 0, 30,
			     "all_ns.orphan_reaped_there");
	tap_is(agent_ask(&a, 'e', a.orphan), 0, "all_ns.orphan_gone_there");
	tap_is(agent_ask(&a, 'e', a.kept), 1, "all_ns.other_kept_there");
	/* the same id in this namespace is another segment: untouched */
	wait_ticks(3, "all_ns");
	prom = slurp_file(METRICS);
	snprintf(sample, sizeof(sample),
		 "ipcwatch_shm_segments{ipcns=\"%lu\",container=\"\"}", a.inum);
	tap_is((long long)metric(prom, sample), 2,
	       "all_ns.metrics_own_series_for_the_largest");
	nns = metric(prom, "ipcwatch_ipc_namespaces");
	tap_ok(nns >= 3, "all_ns.metrics_namespaces_counted");
	tap_is((long long)metric(prom, "ipcwatch_ipc_namespaces_folded"),
	       (long long)nns - 1, "all_ns.metrics_bound_folds_the_rest");
	tap_ok(metric(prom, "ipcwatch_shm_segments{ipcns=\"other\","
			    "container=\"\"}") >= 0,
	       "all_ns.metrics_other_series");
	snprintf(sample, sizeof(sample),
		 "ipcwatch_shm_segments{ipcns=\"%lu\",container=\"\"}",
		 ipc_ns_inum());
	tap_is((long long)metric(prom, sample), -1,
	       "all_ns.metrics_no_series_past_the_bound");
	/* its last process goes: the namespace and its segments with it */
	agent_stop(&a);
	ipcwatch_wait_record(&r, "ipcns_gone", "ipcns", (long long)a.inum, 0,
			     30, "all_ns.teardown_logged");
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "all_ns.exits_0");
	/* the records, parsed once stopped */
	rec = find_event(&r, "reaped", "id", a.orphan, 0);
	tap_is(rec ? (long long)juint(rec, "ipcns") : -1, (long long)a.inum,
	       "all_ns.reaped_names_namespace");
	rec = find_event(&r, "ipcns_gone", "ipcns", (long long)a.inum, 0);
	tap_is(rec ? jint(rec, "segments") : -1, 2, "all_ns.teardown_segments");
	tap_is(rec ? jint(rec, "bytes") : -1, (1 << 20) + 4096,
	       "all_ns.teardown_bytes");
	ipcwatch_free(&r);
}

/*
 * The daemon's own reaper is no RemoveIPC: under guard_rmid = deny it
 * still removes an orphan whose last attacher lives (in use, to the
 * guard), and the guard logs nothing for it.
 */
static void test_reaper_past_guard(void)
{
	struct ipcwatch_run r;
	int orphan, fds[2];
	pid_t toucher;
	char c;

	fresh_ipc_ns();
	write_policy(POLICY, "[policy]\nguard_rmid = deny\n\n[rule reap]\n"
		     "uid = 1000\nrmid_forced = yes\nrmid_grace = 1s\n");
	orphan = shmget_as(1000, 8192);
	if (pipe(fds))
		return;
	toucher = fork();
	if (toucher == 0) {
		void *p = shmat(orphan, NULL, 0);

		/* attached and detached: the last operator, alive */
		if (p == (void *)-1 || shmdt(p) || write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	tap_ok(read(fds[0], &c, 1) == 1, "reaper_guard.last_operator_lives");
	close(fds[0]);
	close(fds[1]);
	if (!tap_ok(start_enforce(&r, NULL), "reaper_guard.starts")) {
		ipcwatch_free(&r);
		kill(toucher, SIGKILL);
		reap(toucher);
		return;
	}
	ipcwatch_wait_record(&r, "reaped", "id", orphan, 0, 30,
			     "reaper_guard.orphan_reaped");
	tap_ok(!seg_exists(orphan), "reaper_guard.orphan_removed");
	ipcwatch_stop(&r);
	tap_is(count_records(&r, "rmid_denied", NULL, NULL) +
	       count_records(&r, "rmid_audit", NULL, NULL), 0,
	       "reaper_guard.guard_logged_nothing");
	ipcwatch_free(&r);
	kill(toucher, SIGKILL);
	reap(toucher);
}

/* ---- hostile input --------------------------------------------------------- */

#define PROBE_OUT "/tmp/alert-probe.out"
#define SLEEPER_PID "/tmp/alert-sleeper.pid"

/* The value of the "@key value" line of the probe's report, or "". */
static const char *probe_says(const char *report, const char *key)
{
	static char val[4096];
	size_t klen = strlen(key);
	const char *p = report;

	val[0] = '\0';
	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			const char *end = strchr(p, '\n');
			size_t n = end ? (size_t)(end - p) - klen - 1
				       : strlen(p + klen + 1);

			snprintf(val, sizeof(val), "%.*s", (int)n, p + klen + 1);
			break;
		}
	return val;
}

static int count_prefixed_lines(const char *text, const char *prefix)
{
	const char *p = text;
	int n = 0;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/*
 * --alert-exec gets the record on stdin and nothing else: a descriptor
 * and a variable the daemon inherited, the signals it blocks for its
 * signalfd and its stdout must not reach the program.
 */
static void test_alert_exec_child(void)
{
	struct ipcwatch_run r;
	const char *rep;
	char pid[32];
	int leak_fd;

	fresh_ipc_ns();
	unlink(PROBE_OUT);
	write_policy(POLICY, "[rule big]\nuid = 1000\n"
		     "alert_segment_bytes = 1M\n");
	leak_fd = open("/dev/null", O_RDONLY);	/* no O_CLOEXEC: inherited */
	setenv("IPCWATCH_TEST_SECRET", "leaked", 1);
	if (!tap_ok(start_enforce(&r, "--alert-exec=/tests/alert_probe"),
		    "alert_exec_child.starts")) {
		ipcwatch_free(&r);
		close(leak_fd);
		unsetenv("IPCWATCH_TEST_SECRET");
		return;
	}
	close(leak_fd);
	unsetenv("IPCWATCH_TEST_SECRET");
	shmget_as(1000, 2 << 20);
	tap_ok(wait_for_path(PROBE_OUT, 30), "alert_exec_child.ran");
	tap_ok(wait_metric("ipcwatch_alert_exec_started_total", 1, 30),
	       "alert_exec_child.started_counted");
	wait_ticks(2, "alert_exec_child");
	ipcwatch_stop(&r);
	rep = slurp_file(PROBE_OUT);
	/* probe_says() has one buffer: keep the first answer */
	snprintf(pid, sizeof(pid), "%s", probe_says(rep, "pid"));
	tap_ok(pid[0] && !strcmp(pid, probe_says(rep, "pgid")),
	       "alert_exec_child.own_process_group");
	tap_str(probe_says(rep, "fds"), "0 1 2",
		"alert_exec_child.only_stdio_open");
	tap_str(probe_says(rep, "sigblk"), "0000000000000000",
		"alert_exec_child.no_blocked_signals");
	tap_is(count_prefixed_lines(rep, "env "), 1,
	       "alert_exec_child.one_variable");
	tap_ok(!strncmp(probe_says(rep, "env"), "PATH=", 5),
	       "alert_exec_child.path_only");
	tap_str(probe_says(rep, "stdout"), "/dev/null",
		"alert_exec_child.stdout_is_dev_null");
	tap_ok(strstr(probe_says(rep, "stdin"), "\"type\":\"alert\"") != NULL,
	       "alert_exec_child.record_on_stdin");
	tap_ok(r.out && !strstr(r.out, "LEAK-TO-STDOUT"),
	       "alert_exec_child.stdout_not_in_json");
	tap_is(count_records(&r, "alert", "kind", "segment"), 1,
	       "alert_exec_child.alert_logged");
	ipcwatch_free(&r);
}

/* Whether @pid is gone or a zombie. */
static bool pid_dead(int pid)
{
	char path[64], *stat, *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = slurp_file(path);
	if (!stat[0])
		return true;
	paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* A program that outlives --alert-timeout is killed, children too. */
static void test_alert_exec_timeout(void)
{
	struct ipcwatch_run r;
	int shell = 0, child = 0, i;

	fresh_ipc_ns();
	unlink(SLEEPER_PID);
	write_policy(POLICY, "[rule big]\nuid = 1000\n"
		     "alert_segment_bytes = 1M\n");
	if (!tap_ok(start_enforce2(&r, "--alert-exec=/tests/alert_sleeper",
				   "--alert-timeout=2"),
		    "alert_exec_timeout.starts")) {
		ipcwatch_free(&r);
		return;
	}
	shmget_as(1000, 2 << 20);
	tap_ok(wait_for_path(SLEEPER_PID, 30) &&
	       sscanf(slurp_file(SLEEPER_PID), "%d %d", &shell, &child) == 2,
	       "alert_exec_timeout.program_ran");
	ipcwatch_wait_record(&r, "alert_exec_timeout", NULL, 0, 0, 30,
			     "alert_exec_timeout.logged");
	for (i = 0; i < 20 * 20 && !(pid_dead(shell) && pid_dead(child)); i++)
		usleep(50000);
	tap_ok(shell > 0 && pid_dead(shell), "alert_exec_timeout.program_killed");
	tap_ok(child > 0 && pid_dead(child),
	       "alert_exec_timeout.its_child_killed");
	tap_ok(wait_metric("ipcwatch_alert_exec_timeouts_total", 1, 30),
	       "alert_exec_timeout.counted");
	ipcwatch_stop(&r);
	{
		json_object *t = find_event(&r, "alert_exec_timeout", NULL, 0, 0);
		char pid[32];

		snprintf(pid, sizeof(pid), "pid %d", shell);
		tap_ok(t && strstr(jstr(t, "message"), pid),
		       "alert_exec_timeout.names_pid");
	}
	ipcwatch_free(&r);
}

#define LEAVER_PID "/tmp/alert-leaver.pid"

/*
 * --alert-exec's stderr is /dev/null, not the daemon's; what the program
 * leaves in its process group is killed when it exits, long before the
 * timeout.
 */
static void test_alert_exec_leaves(void)
{
	struct ipcwatch_run r;
	int child = 0, i;

	fresh_ipc_ns();
	unlink(LEAVER_PID);
	write_policy(POLICY, "[rule big]\nuid = 1000\n"
		     "alert_segment_bytes = 1M\n");
	if (!tap_ok(start_enforce2(&r, "--alert-exec=/tests/alert_leaver",
				   "--alert-timeout=600"),
		    "alert_exec_leaves.starts")) {
		ipcwatch_free(&r);
		return;
	}
	shmget_as(1000, 2 << 20);
	tap_ok(wait_for_path(LEAVER_PID, 30) &&
	       sscanf(slurp_file(LEAVER_PID), "%d", &child) == 1,
	       "alert_exec_leaves.program_ran");
	for (i = 0; i < 20 * 20 && !(child > 0 && pid_dead(child)); i++)
		usleep(50000);
	tap_ok(child > 0 && pid_dead(child),
	       "alert_exec_leaves.child_killed_when_program_exits");
	ipcwatch_stop(&r);
	tap_ok(r.err && !strstr(r.err, "alert-leaver-complains"),
	       "alert_exec_leaves.stderr_not_the_daemons");
	tap_is(count_records(&r, "alert_exec_timeout", NULL, NULL), 0,
	       "alert_exec_leaves.no_timeout");
	ipcwatch_free(&r);
}

/* Start refused with exit 1 and one line saying @says; nothing loaded. */
static void refused_start(const char *name, const char *const argv[],
			  const char *says)
{
	struct ipcwatch_run r;
	bool started = ipcwatch_start(&r, argv, NULL, NULL);

	/* a daemon that starts anyway is stopped, not waited for */
	if (started)
		ipcwatch_stop(&r);
	tap_ok(!started && r.status == 1, "untrusted.%s.exit_status", name);
	if (!tap_ok(strstr(r.err, says) &&
		    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		    "untrusted.%s.one_line", name))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
}

#define TMP_POLICY "/tmp/policy.ini"
#define TMP_SINK "/tmp/alert_sink"

/*
 * As sshd's StrictModes: a policy or --alert-exec program that someone
 * other than root owns or can write, itself or through a directory on
 * its path (as given or as resolved), is refused at start and at reload.
 */
static void test_untrusted_files(void)
{
	const char *in_tmp[] = { "ipcwatch", "enforce", "-c", TMP_POLICY,
				 NULL };
	const char *loose[] = { "ipcwatch", "enforce", "-c",
				CONF_DIR "/loose.ini", NULL };
	const char *theirs[] = { "ipcwatch", "enforce", "-c",
				 CONF_DIR "/theirs.ini", NULL };
	const char *their_dir[] = { "ipcwatch", "enforce", "-c",
				    CONF_DIR "/sub/p.ini", NULL };
	const char *link[] = { "ipcwatch", "enforce", "-c",
			       CONF_DIR "/link.ini", NULL };
	const char *sink[] = { "ipcwatch", "enforce", "-c", GOOD,
			       "--alert-exec=" TMP_SINK, NULL };
	static const char good[] = "[rule a]\nmax_segments = 9\n";
	struct ipcwatch_run r;

	write_policy(GOOD, good);
	chmod(GOOD, 0644);
	write_policy(TMP_POLICY, good);
	chmod(TMP_POLICY, 0644);
	refused_start("policy_in_tmp", in_tmp,
		      "ipcwatch enforce: policy not trusted: /tmp: directory "
		      "writable by group or others (mode 1777)");
	write_policy(CONF_DIR "/loose.ini", good);
	chmod(CONF_DIR "/loose.ini", 0664);
	refused_start("group_writable", loose, CONF_DIR "/loose.ini: file "
		      "writable by group or others (mode 0664)");
	write_policy(CONF_DIR "/theirs.ini", good);
	chmod(CONF_DIR "/theirs.ini", 0644);
	if (chown(CONF_DIR "/theirs.ini", 1000, 1000))
		exit(2);
	refused_start("not_root_owned", theirs, CONF_DIR "/theirs.ini: file "
		      "owned by uid 1000, not root");
	mkdir(CONF_DIR "/sub", 0755);
	write_policy(CONF_DIR "/sub/p.ini", good);
	chmod(CONF_DIR "/sub/p.ini", 0644);
	if (chown(CONF_DIR "/sub", 1000, 1000))
		exit(2);
	refused_start("dir_not_root_owned", their_dir, CONF_DIR "/sub: "
		      "directory owned by uid 1000, not root");
	unlink(CONF_DIR "/link.ini");
	if (symlink(TMP_POLICY, CONF_DIR "/link.ini"))
		exit(2);
	refused_start("link_into_tmp", link, "/tmp: directory writable by "
		      "group or others");
	if (system("cp /tests/alert_sink " TMP_SINK " && chmod 755 " TMP_SINK))
		exit(2);
	refused_start("alert_exec_in_tmp", sink, "ipcwatch enforce: "
		      "--alert-exec not trusted: /tmp: directory writable by "
		      "group or others");
	tap_is(bpf_prog_count(), baseline_progs, "untrusted.nothing_loaded");
	unlink(CONF_DIR "/loose.ini");
	unlink(CONF_DIR "/theirs.ini");
	unlink(CONF_DIR "/sub/p.ini");
	rmdir(CONF_DIR "/sub");
	unlink(CONF_DIR "/link.ini");
	unlink(TMP_POLICY);
	unlink(TMP_SINK);

	/* while running: a reload and an alert program turned writable */
	fresh_ipc_ns();
	unlink(ALERT_OUT);
	if (system("cp /tests/alert_sink " CONF_DIR "/alert_sink && chmod 755 "
		   CONF_DIR "/alert_sink"))
		exit(2);
	write_policy(POLICY, "[rule one]\nuid = 1000\nmax_segments = 2\n"
		     "alert_segment_bytes = 1M\nmode = enforce\n");
	chmod(POLICY, 0644);
	if (!tap_ok(start_enforce(&r, "--alert-exec=" CONF_DIR "/alert_sink"),
		    "untrusted.running.starts")) {
		ipcwatch_free(&r);
		return;
	}
	chmod(CONF_DIR "/alert_sink", 0777);
	shmget_as(1000, 2 << 20);
	ipcwatch_wait_record(&r, "alert_exec_refused", NULL, 0, 0, 30,
			     "untrusted.running.alert_exec_refused");
	tap_ok(wait_metric("ipcwatch_alert_exec_skipped_total", 1, 30),
	       "untrusted.running.skip_counted");
	chmod(POLICY, 0666);
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reload_failed", NULL, 0, 0, 30,
			     "untrusted.running.reload_refused");
	tap_ok(shmget_as(1000, 4096) >= 0, "untrusted.running.under_old_limit");
	tap_is(shmget_as(1000, 4096), -ENOSPC,
	       "untrusted.running.old_policy_in_force");
	chmod(POLICY, 0644);
	kill(r.pid, SIGHUP);
	ipcwatch_wait_record(&r, "reloaded", NULL, 0, 0, 30,
			     "untrusted.running.trusted_again_reloads");
	ipcwatch_stop(&r);
	tap_ok(access(ALERT_OUT, F_OK) != 0,
	       "untrusted.running.alert_exec_not_run");
	{
		json_object *f = find_event(&r, "reload_failed", NULL, 0, 0);

		tap_ok(f && strstr(jstr(f, "message"),
				   POLICY ": file writable by group or others "
				   "(mode 0666)"),
		       "untrusted.running.reload_says_why");
	}
	ipcwatch_free(&r);
	unlink(CONF_DIR "/alert_sink");
}

#define PRECIOUS CONF_DIR "/precious"
#define LINK_PROM "/tmp/ipcwatch-link.prom"

/* The metrics textfile is replaced by rename(), never through a link. */
static void test_metrics_symlink(void)
{
	const char *argv[] = { "ipcwatch", "enforce", "-c", GOOD,
			       "--metrics-file=" LINK_PROM, NULL };
	struct ipcwatch_run r;
	struct stat st;

	write_policy(GOOD, "[rule a]\nmax_segments = 9\n");
	chmod(GOOD, 0644);
	write_policy(PRECIOUS, "keep\n");
	unlink(LINK_PROM);
	if (symlink(PRECIOUS, LINK_PROM))
		exit(2);
	if (ipcwatch_start(&r, argv, NULL, NULL)) {
		ipcwatch_stop(&r);
		r.status = 0;
	}
	tap_is(r.status, 1, "metrics_link.start_refused");
	if (!tap_ok(strstr(r.err, LINK_PROM ": a symbolic link, not replaced")
		    != NULL, "metrics_link.start_says_why"))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
	unlink(LINK_PROM);

	fresh_ipc_ns();
	write_policy(POLICY, "[rule a]\nmax_segments = 9\n");
	if (!tap_ok(start_enforce(&r, NULL), "metrics_link.starts")) {
		ipcwatch_free(&r);
		return;
	}
	wait_ticks(1, "metrics_link");
	unlink(METRICS);
	if (symlink(PRECIOUS, METRICS))
		exit(2);
	ipcwatch_wait_record(&r, "error", NULL, 0, 0, 30,
			     "metrics_link.running_error_logged");
	ipcwatch_stop(&r);
	{
		json_object *e = find_event(&r, "error", NULL, 0, 0);

		tap_ok(e && strstr(jstr(e, "message"), "a symbolic link"),
		       "metrics_link.running_says_why");
	}
	tap_str(slurp_file(PRECIOUS), "keep\n", "metrics_link.target_unchanged");
	tap_ok(!lstat(METRICS, &st) && S_ISLNK(st.st_mode),
	       "metrics_link.link_left_alone");
	ipcwatch_free(&r);
	unlink(METRICS);
	unlink(PRECIOUS);
}

/* Whether /proc/net/tcp has a listener on @addr (dotted) port @port. */
static bool tcp_listening(const char *addr, int port)
{
	struct in_addr in;
	char want[32], line[256];
	FILE *f = fopen("/proc/net/tcp", "r");
	bool found = false;

	inet_pton(AF_INET, addr, &in);
	/* the kernel prints the address as the host-order word of s_addr */
	snprintf(want, sizeof(want), "%08X:%04X", in.s_addr, port);
	while (f && fgets(line, sizeof(line), f)) {
		char local[32], remote[32];
		unsigned int st;

		if (sscanf(line, " %*d: %31s %31s %x", local, remote, &st) == 3 &&
		    !strcmp(local, want) && st == 0x0A)
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* --metrics-listen=:PORT serves loopback only. */
static void test_metrics_loopback(void)
{
	struct ipcwatch_run r;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule a]\nmax_segments = 9\n");
	if (!tap_ok(start_enforce(&r, "--metrics-listen=:9478"),
		    "metrics_loopback.starts")) {
		ipcwatch_free(&r);
		return;
	}
	tap_ok(tcp_listening("127.0.0.1", 9478),
	       "metrics_loopback.listens_on_127.0.0.1");
	tap_ok(!tcp_listening("0.0.0.0", 9478),
	       "metrics_loopback.not_on_every_address");
	tap_ok(strstr(http_get(9478), "ipcwatch_ticks_total") != NULL,
	       "metrics_loopback.serves");
	ipcwatch_stop(&r);
	ipcwatch_free(&r);
}

#define EVIL_COMM "\x1b[31mevil"

/* A command name with a terminal escape reaches logs escaped. */
static void test_escaped_comm(void)
{
	struct ipcwatch_run r;
	pid_t pid;

	fresh_ipc_ns();
	write_policy(POLICY, "[rule small]\nmax_segment_bytes = 64K\n"
		     "mode = enforce\n");
	if (!tap_ok(start_enforce(&r, NULL), "escaped_comm.starts")) {
		ipcwatch_free(&r);
		return;
	}
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, EVIL_COMM, 0, 0, 0);
		_exit(shmget(IPC_PRIVATE, 128 << 10, IPC_CREAT | 0600) < 0 &&
		      errno == EINVAL ? 0 : 1);
	}
	tap_is(reap(pid), 0, "escaped_comm.denied");
	ipcwatch_wait_record(&r, "policy_denied", "pid", pid, 0, 30,
			     "escaped_comm.denial_logged");
	tap_ok(wait_in_file(SYSLOG, "\\x1b[31mevil", 30),
	       "escaped_comm.syslog_escaped");
	ipcwatch_stop(&r);
	tap_ok(r.out && strstr(r.out, "\"comm\":\"\\u001b[31mevil\"") &&
	       !strchr(r.out, '\x1b'),
	       "escaped_comm.json_escaped");
	tap_str(jstr(find_event(&r, "policy_denied", "pid", pid, 0), "comm"),
		EVIL_COMM, "escaped_comm.json_decodes_to_name");
	ipcwatch_free(&r);
}

/* ---- the IPC_RMID guard ---------------------------------------------------- */

/*
 * The application logind's RemoveIPC would break: a process of euid
 * 1000 (its saved uid root) holding a semaphore set (semaphore 0 set
 * by it, so it is the last operator) with a child asleep on it, and a
 * segment it made and keeps attached. It answers commands on a pipe.
 */
struct guard_app {
	pid_t pid;
	pid_t waiter;		/* its child, asleep on semaphore 0 */
	int semid, shmid;
	int cmd, res;		/* pipe ends: to it, from it */
};

static void guard_app_serve(int semid, int shmid, pid_t waiter, int in,
			    int out)
{
	int r, status;
	char c;

	while (read(in, &c, 1) == 1) {
		if (c == 'r') {
			/* its own process, as another uid than the owner's */
			r = seteuid(0) || shmctl(shmid, IPC_RMID, NULL) ?
			    errno : 0;
		} else if (c == 'v') {
			/* an operation of its own: its last operator again */
			r = semctl(semid, 1, SETVAL, 1) ? errno : 0;
		} else if (c == 'w') {
			/* the waiter's semop() result, as an errno */
			r = waitpid(waiter, &status, 0) == waiter &&
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		} else {
			break;
		}
		if (write(out, &r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

static bool guard_app_start(struct guard_app *a)
{
	int down[2], up[2], got[3] = { -1, -1, -1 };
	uint64_t deadline;

	memset(a, 0, sizeof(*a));
	if (pipe(down) || pipe(up))
		exit(2);
	a->pid = fork();
	if (a->pid == 0) {
		struct sembuf wait_op = { 0, -1, 0 };
		int semid, shmid;
		char *mem;
		pid_t w;

		close(down[1]);
		close(up[0]);
		if (setresgid(-1, 1000, 0) || setresuid(-1, 1000, 0))
			_exit(1);
		semid = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
		if (semid < 0 || semctl(semid, 0, SETVAL, 0))
			_exit(1);
		/* forked first: the sleeper holds no attach of its own */
		w = fork();
		if (w == 0)
			_exit(semop(semid, &wait_op, 1) ? errno : 0);
		shmid = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		mem = shmid >= 0 ? shmat(shmid, NULL, 0) : (void *)-1;
		if (mem == (void *)-1)
			_exit(1);
		strcpy(mem, "application data");
		got[0] = semid;
		got[1] = shmid;
		got[2] = w;
		if (write(up[1], got, sizeof(got)) != sizeof(got))
			_exit(1);
		guard_app_serve(semid, shmid, w, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	a->cmd = down[1];
	a->res = up[0];
	if (read(a->res, got, sizeof(got)) != sizeof(got))
		return false;
	a->semid = got[0];
	a->shmid = got[1];
	a->waiter = got[2];
	/* asleep: the kernel counts it on semaphore 0 */
	deadline = mono_ms() + 30000;
	while (semctl(a->semid, 0, GETNCNT) != 1 && mono_ms() < deadline)
		usleep(20000);
	return semctl(a->semid, 0, GETNCNT) == 1;
}

/* Ask the application: its answer, or -1. */
static int guard_app_ask(struct guard_app *a, char c)
{
	int r = -1;

	if (write(a->cmd, &c, 1) != 1 ||
	    read(a->res, &r, sizeof(r)) != sizeof(r))
		return -1;
	return r;
}

static void guard_app_stop(struct guard_app *a)
{
	close(a->cmd);
	close(a->res);
	if (a->waiter > 0)
		kill(a->waiter, SIGKILL);
	reap(a->pid);
	semctl(a->semid, 0, IPC_RMID);
	shmctl(a->shmid, IPC_RMID, NULL);
}

/*
 * IPC_RMID of a set (or with @shm a segment) by a child of @uid called
 * @comm, as logind's cleanup would: 0 or -errno, its pid in @pid.
 */
static int remove_as(uid_t uid, const char *comm, bool shm, int id,
		     pid_t *pid)
{
	int fds[2], ret = -EIO;

	if (pipe(fds))
		exit(2);
	*pid = fork();
	if (*pid == 0) {
		int r;

		prctl(PR_SET_NAME, comm);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(1);
		r = shm ? shmctl(id, IPC_RMID, NULL) : semctl(id, 0, IPC_RMID);
		r = r < 0 ? -errno : 0;
		_exit(write(fds[1], &r, sizeof(r)) != sizeof(r));
	}
	reap(*pid);
	if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(fds[0]);
	close(fds[1]);
	return ret;
}

/* A set of @uid made by a child that exits: nobody uses it. */
static int idle_set_of(uid_t uid)
{
	int fds[2], id = -1;
	pid_t pid;

	if (pipe(fds))
		exit(2);
	pid = fork();
	if (pid == 0) {
		int r;

		if (setgid(uid) || setuid(uid))
			_exit(1);
		r = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
		_exit(write(fds[1], &r, sizeof(r)) != sizeof(r));
	}
	reap(pid);
	if (read(fds[0], &id, sizeof(id)) != sizeof(id))
		id = -1;
	close(fds[0]);
	close(fds[1]);
	return id;
}

/*
 * guard_rmid against logind's RemoveIPC: root (not the owner, not the
 * creator) removes a set with a sleeper and a segment attached. Audit
 * lets both go and logs them; deny refuses both with EPERM, the
 * application carries on, and its own process and its owner's uid
 * still remove them. Objects nobody uses go in either mode, unlogged.
 */
static void test_guard_rmid(const char *mode)
{
	bool deny = !strcmp(mode, "deny");
	const char *type = deny ? "rmid_denied" : "rmid_audit";
	pid_t sem_remover = 0, shm_remover = 0, p;
	struct guard_app app;
	struct ipcwatch_run r;
	char needle[320], sample[128];
	json_object *d;
	int idle_sem, idle_shm;

	fresh_ipc_ns();
	/* the guard alone is a policy */
	write_policy(POLICY, "[policy]\nguard_rmid = %s\n", mode);
	if (!tap_ok(start_enforce(&r, NULL), "guard_%s.starts", mode)) {
		tap_diag("  %s", r.err);
		ipcwatch_free(&r);
		return;
	}
	/* not in use: no sleeper, no attach, creator and operators gone */
	idle_sem = idle_set_of(1000);
	idle_shm = shmget_as(1000, 4096);
	tap_is(remove_as(0, "ipcw-logind", false, idle_sem, &p), 0,
	       "guard_%s.idle_set_removed", mode);
	tap_is(remove_as(0, "ipcw-logind", true, idle_shm, &p), 0,
	       "guard_%s.idle_segment_removed", mode);
	tap_ok(idle_shm >= 0 && !seg_exists(idle_shm),
	       "guard_%s.idle_segment_gone", mode);

	if (!tap_ok(guard_app_start(&app), "guard_%s.application_waits",
		    mode)) {
		guard_app_stop(&app);
		ipcwatch_stop(&r);
		ipcwatch_free(&r);
		return;
	}
	tap_is(remove_as(0, "ipcw-logind", false, app.semid, &sem_remover),
	       deny ? -EPERM : 0, "guard_%s.in_use_set_rmid", mode);
	tap_is(remove_as(0, "ipcw-logind", true, app.shmid, &shm_remover),
	       deny ? -EPERM : 0, "guard_%s.in_use_segment_rmid", mode);
	if (deny) {
		struct sembuf post = { 0, 1, 0 };
		struct shmid_ds ds;

		/* the application carries on: its sleeper gets the post */
		tap_ok(semop(app.semid, &post, 1) == 0,
		       "deny.semop_after_refusal");
		tap_is(guard_app_ask(&app, 'w'), 0, "deny.waiter_semop_succeeds");
		tap_ok(shmctl(app.shmid, IPC_STAT, &ds) == 0 &&
		       ds.shm_nattch == 1 && !(ds.shm_perm.mode & SHM_DEST),
		       "deny.segment_still_attached");
		/* its own process, with euid root (not the owner's uid) */
		tap_is(guard_app_ask(&app, 'r'), 0,
		       "deny.creator_process_removes_segment");
		/* the owner's uid, from another process, while in use */
		tap_ok(guard_app_ask(&app, 'v') == 0 &&
		       semctl(app.semid, 1, GETPID) == app.pid,
		       "deny.set_in_use_again");
		tap_is(remove_as(1000, "ipcw-owner", false, app.semid, &p), 0,
		       "deny.owner_uid_removes_set");
	} else {
		/* removed under it: the sleeper wakes with EIDRM */
		tap_is(guard_app_ask(&app, 'w'), EIDRM,
		       "audit.waiter_sees_eidrm");
		{
			struct shmid_ds ds;

			/* still attached: marked, freed at the last detach */
			tap_ok(shmctl(app.shmid, IPC_STAT, &ds) == 0 &&
			       (ds.shm_perm.mode & SHM_DEST),
			       "audit.segment_marked_removed");
		}
	}
	app.waiter = 0;
	wait_ticks(2, deny ? "guard_deny" : "guard_audit");
	snprintf(sample, sizeof(sample),
		 "ipcwatch_rmid_guarded_total{object=\"sem\",action=\"%s\"}",
		 deny ? "denied" : "audited");
	tap_is((int)metric(slurp_file(METRICS), sample), 1,
	       "guard_%s.metric_sem", mode);
	ipcwatch_stop(&r);
	tap_is(r.status, 0, "guard_%s.exits_0", mode);

	d = find_event(&r, type, "pid", sem_remover, 0);
	if (!tap_ok(d && !strcmp(jstr(d, "object"), "sem") &&
		    !strcmp(jstr(d, "comm"), "ipcw-logind") &&
		    jint(d, "uid") == 0 && jint(d, "id") == app.semid &&
		    jint(d, "owner_uid") == 1000 && jint(d, "cuid") == 1000 &&
		    jint(d, "waiters") == 1 && jint(d, "has_waiters") == 1 &&
		    jint(d, "last_semnum") == 0 &&
		    jint(d, "sempid") == app.pid && jint(d, "cgroup_id") > 0 &&
		    jint(d, "enforced") == deny &&
		    jint(d, "err") == (deny ? EPERM : 0),
		    "guard_%s.set_logged_naming_both", mode))
		tap_diag("  record: %s", d ? json_object_to_json_string(d) :
			 "none");
	d = find_event(&r, type, "pid", shm_remover, 0);
	if (!tap_ok(d && !strcmp(jstr(d, "object"), "shm") &&
		    !strcmp(jstr(d, "comm"), "ipcw-logind") &&
		    jint(d, "uid") == 0 && jint(d, "id") == app.shmid &&
		    jint(d, "owner_uid") == 1000 && jint(d, "nattch") == 1 &&
		    jint(d, "cpid") == app.pid && jint(d, "lpid") == app.pid &&
		    jint(d, "creator_alive") == 1 &&
		    jint(d, "enforced") == deny,
		    "guard_%s.segment_logged_naming_both", mode))
		tap_diag("  record: %s", d ? json_object_to_json_string(d) :
			 "none");
	/* the idle removals and the owner's and creator's are not logged */
	tap_is(count_records(&r, type, NULL, NULL), 2,
	       "guard_%s.only_guarded_removals_logged", mode);
	snprintf(needle, sizeof(needle),
		 "%s: IPC_RMID of semaphore set id %d key 0x00000000 (owner "
		 "uid 1000, creator uid 1000) in use: 1 waiter, last operator "
		 "pid %d alive (semaphore 0); by pid %d (ipcw-logind) uid 0 "
		 "cgroup ", deny ? "DENIED EPERM" : "AUDIT (allowed)",
		 app.semid, app.pid, sem_remover);
	tap_ok(wait_in_file(SYSLOG, needle, 30), "guard_%s.in_syslog", mode);
	tap_is(bpf_prog_count(), baseline_progs,
	       "guard_%s.nothing_left_loaded", mode);
	guard_app_stop(&app);
	ipcwatch_free(&r);
}

int main(void)
{
	pid_t syslogd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir(CONF_DIR, 0755);
	syslogd = fork();
	if (syslogd == 0) {
		execl("/bin/syslogd", "syslogd", "-n", "-O", SYSLOG, NULL);
		_exit(127);
	}
	tap_ok(wait_for_path("/dev/log", 30), "syslogd.listening");
	baseline_progs = bpf_prog_count();

	test_policy_check();
	test_max_segment();
	test_cgroup_rule();
	test_total_and_count("enforce");
	test_total_and_count("audit");
	test_totals_exact();
	test_reaper();
	test_reaper_recorded_rule();
	test_owners_full("enforce");
	test_owners_full("audit");
	test_huge_request();
	test_alerts();
	test_reload_and_term();
	test_survive_kill9();
	test_unfinished_pins();
	test_unseeded_reload();
	test_kept_scopes();
	test_sighup_during_start();
	test_transient_read_error();
	test_unreadable_at_start();
	test_metrics();
	test_all_namespaces();
	test_reaper_past_guard();
	test_metrics_symlink();
	test_metrics_loopback();
	test_alert_exec_child();
	test_alert_exec_timeout();
	test_alert_exec_leaves();
	test_untrusted_files();
	test_escaped_comm();
	test_bad_input();
	test_guard_rmid("audit");
	test_guard_rmid("deny");

	kill(syslogd, SIGTERM);
	waitpid(syslogd, NULL, 0);
	return tap_done();
}
