// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "notify.h"

#include "ns_set.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "json_writer.h"
#include "policy_bpf.h"
#include "printable.h"
#include "trust.h"
#include "units.h"

const char *alert_kind_name(enum alert_kind kind)
{
	switch (kind) {
	case ALERT_SEGMENT: return "segment";
	case ALERT_OWNER: return "owner";
	default: return "namespace";
	}
}

static const char *scope_name(uint32_t scope)
{
	return policy_scope_name((enum policy_scope)scope);
}

void notify_init(struct notifier *n, bool json, const char *alert_exec,
		 unsigned int exec_timeout_s)
{
	struct rlimit nofile;

	memset(n, 0, sizeof(*n));
	n->json = json;
	n->alert_exec = alert_exec;
	n->exec_timeout_s = exec_timeout_s;
	n->syslog = true;
	n->mono_to_real_ns = mono_to_real_ns();
	n->max_fd = getrlimit(RLIMIT_NOFILE, &nofile) ||
		    nofile.rlim_cur > INT_MAX ? 65536 : (int)nofile.rlim_cur;
	openlog("ipcwatch", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

/*
 * The child side, between fork() and exec (async-signal-safe calls
 * only: the metrics server has threads). The record on stdin and
 * nothing else: stdout and stderr are /dev/null, so nothing mixes into
 * --json or the daemon's log (a program that wants to say something
 * uses logger(1)), every other descriptor is closed or the program is
 * not run, the environment is a fixed PATH, the signals the daemon
 * takes through its signalfd are unblocked.
 */
static void exec_child(const char *prog, int in, int max_fd)
{
	static char *const envp[] = {
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
		"/sbin:/bin", NULL
	};
	char *const argv[] = { (char *)prog, NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int null, fd;

	setpgid(0, 0);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(in, STDIN_FILENO) < 0 ||
	    dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
		_exit(127);
	/* kernels before 5.9 have no close_range: one by one */
	if (close_range(3, ~0U, 0))
		for (fd = 3; fd < max_fd; fd++)
			if (close(fd) && errno != EBADF)
				_exit(127);
	execve(prog, argv, envp);
	_exit(127);
}

/* Whether --alert-exec may run now; said once when it may not. */
static bool exec_trusted(struct notifier *n)
{
	char err[512];

	if (!trust_file(n->alert_exec, true, err, sizeof(err))) {
		n->exec_untrusted = false;
		return true;
	}
	if (!n->exec_untrusted)
		notify_message(n, LOG_ERR, "alert_exec_refused",
			       "--alert-exec %s not run (until it is trusted "
			       "again): %s", n->alert_exec, err);
	n->exec_untrusted = true;
	return false;
}

/* Run --alert-exec with @json on its stdin; never waits for it. */
static void run_alert_exec(struct notifier *n, const char *json)
{
	int fds[2], slot;
	pid_t pid;

	if (!n->alert_exec)
		return;
	for (slot = 0; slot < NOTIFY_MAX_CHILDREN; slot++)
		if (!n->child[slot].pid)
			break;
	/* checked at every run: the program may have changed since */
	if (slot == NOTIFY_MAX_CHILDREN || !exec_trusted(n) ||
	    pipe2(fds, O_CLOEXEC)) {
		n->exec_skipped++;
		return;
	}
	pid = fork();
	if (pid == 0)
		exec_child(n->alert_exec, fds[0], n->max_fd);
	close(fds[0]);
	if (pid < 0) {
		n->exec_skipped++;
		close(fds[1]);
		return;
	}
	/* both sides: a kill of the group must not race the child's own */
	setpgid(pid, pid);
	n->child[slot] = (struct alert_child){ .pid = pid,
					       .started_ns = mono_ns() };
	n->children++;
	n->exec_started++;
	/* one record is far below a pipe's capacity; EPIPE if it is gone */
	if (write(fds[1], json, strlen(json)) < 0)
		n->exec_skipped++;
	close(fds[1]);
}

void notify_reap_children(struct notifier *n, uint64_t now_ns)
{
	uint64_t limit = (uint64_t)n->exec_timeout_s * 1000000000ULL;
	pid_t pid;
	int i;

	while (n->children > 0) {
		siginfo_t si = { 0 };

		/* seen, not reaped: while a zombie, its pid names its group */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    !si.si_pid)
			break;
		pid = si.si_pid;
		/*
		 * What it left running in its group ends with it: nothing
		 * outlives it unnoticed (only setsid() escapes).
		 */
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		for (i = 0; i < NOTIFY_MAX_CHILDREN; i++)
			if (n->child[i].pid == pid) {
				n->child[i].pid = 0;
				n->children--;
			}
	}
	for (i = 0; i < NOTIFY_MAX_CHILDREN; i++) {
		struct alert_child *c = &n->child[i];

		if (!c->pid || c->killed || now_ns - c->started_ns < limit)
			continue;
		/* the whole group: what it started goes with it */
		kill(-c->pid, SIGKILL);
		c->killed = true;
		n->exec_timeouts++;
		notify_message(n, LOG_WARNING, "alert_exec_timeout",
			       "--alert-exec %s (pid %d) still running after "
			       "%u s: killed with its process group",
			       n->alert_exec, (int)c->pid, n->exec_timeout_s);
	}
}

/* Build one JSON record: the caller fills the body between the two. */
struct record {
	char *buf;
	size_t len;
	FILE *f;
	struct json_writer *jw;
};

static bool record_begin(struct notifier *n, struct record *r,
			 const char *type)
{
	memset(r, 0, sizeof(*r));
	r->f = open_memstream(&r->buf, &r->len);
	if (!r->f)
		return false;
	r->jw = jw_new(r->f);
	if (!r->jw) {
		fclose(r->f);
		free(r->buf);
		return false;
	}
	jw_start_object(r->jw);
	jw_kv_string(r->jw, "type", type);
	jw_kv_int(r->jw, "time_ns", (int64_t)mono_ns() + n->mono_to_real_ns);
	return true;
}

/* Finish, then log: NDJSON or @text on stdout, @text to syslog. */
static void record_end(struct notifier *n, struct record *r, int priority,
		       const char *text)
{
	jw_end_object(r->jw);
	jw_destroy(r->jw);
	fclose(r->f);
	if (n->json)
		fputs(r->buf, stdout);
	else
		printf("%s\n", text);
	fflush(stdout);
	if (n->syslog)
		syslog(priority, "%s", text);
	run_alert_exec(n, r->buf);
	free(r->buf);
}

void notify_decision(struct notifier *n, const struct ipcw_decision *d,
		     const struct policy *p)
{
	/* by id: the policy may have been reloaded since the decision */
	int idx = policy_rule_by_id(p, d->rule_id);
	const char *rule = idx >= 0 ? p->rules[idx].name :
			   d->rule_id == IPCW_NO_RULE ? "(none)" : "(reloaded)";
	char text[512], a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF];
	char comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	struct record r;

	printable(comm, sizeof(comm), d->comm);

	if (d->kind == IPCW_LIMIT_ACCOUNTING)
		snprintf(text, sizeof(text),
			 "%s: shmget() of %s by pid %u (%s) uid %u: the "
			 "per-owner totals cannot take it (full or failed "
			 "update; see enforce --max-owners)",
			 d->enforced ? "DENIED ENOSPC" : "UNACCOUNTED (allowed)",
			 fmt_bytes(a, sizeof(a), d->size), d->pid, comm,
			 d->uid);
	else if (d->kind == IPCW_LIMIT_SEGMENT)
		snprintf(text, sizeof(text),
			 "%s: shmget() of %s by pid %u (%s) uid %u: over "
			 "max_segment_bytes %s of rule %s",
			 d->enforced ? "DENIED EINVAL" : "AUDIT (allowed)",
			 fmt_bytes(a, sizeof(a), d->size), d->pid, comm,
			 d->uid, fmt_bytes(b, sizeof(b), d->limit), rule);
	else if (d->kind == IPCW_LIMIT_TOTAL)
		snprintf(text, sizeof(text),
			 "%s: shmget() of %s by pid %u (%s) uid %u: %s %llu "
			 "would hold %s, over max_total_bytes %s of rule %s",
			 d->enforced ? "DENIED ENOSPC" : "AUDIT (allowed)",
			 fmt_bytes(a, sizeof(a), d->size), d->pid, comm,
			 d->uid, scope_name(d->scope),
			 (unsigned long long)d->owner,
			 fmt_bytes(b, sizeof(b), (uint64_t)d->total_bytes),
			 fmt_bytes(c, sizeof(c), d->limit), rule);
	else
		snprintf(text, sizeof(text),
			 "%s: shmget() by pid %u (%s) uid %u: %s %llu would "
			 "hold %lld segments, over max_segments %llu of rule %s",
			 d->enforced ? "DENIED ENOSPC" : "AUDIT (allowed)",
			 d->pid, comm, d->uid, scope_name(d->scope),
			 (unsigned long long)d->owner,
			 (long long)d->total_segments,
			 (unsigned long long)d->limit, rule);
	if (!record_begin(n, &r, d->enforced ? "policy_denied" :
					       "policy_audit"))
		return;
	jw_kv_string(r.jw, "rule", rule);
	jw_kv_string(r.jw, "limit", limit_kind_name(d->kind));
	jw_kv_bool(r.jw, "enforced", d->enforced);
	jw_kv_int(r.jw, "err", d->err);
	jw_kv_uint(r.jw, "pid", d->pid);
	jw_kv_uint(r.jw, "tid", d->tid);
	jw_kv_string(r.jw, "comm", d->comm);
	jw_kv_uint(r.jw, "uid", d->uid);
	jw_kv_uint(r.jw, "gid", d->gid);
	jw_kv_uint(r.jw, "ipcns", d->ipcns);
	jw_kv_uint(r.jw, "size", d->size);
	jw_kv_string(r.jw, "scope", scope_name(d->scope));
	jw_kv_uint(r.jw, "owner", d->owner);
	jw_kv_int(r.jw, "owner_bytes", d->total_bytes);
	jw_kv_int(r.jw, "owner_segments", d->total_segments);
	jw_kv_uint(r.jw, "threshold", d->limit);
	record_end(n, &r, d->enforced ? LOG_WARNING : LOG_NOTICE, text);
}

const char *rmid_object_name(uint32_t object)
{
	return object == IPCW_RMID_SHM ? "shm" : "sem";
}

/* What kept the object in use, in words: "2 attached, creator pid 7 alive" */
static void rmid_use_text(const struct ipcw_rmid_decision *d, char *buf,
			  size_t len)
{
	size_t used = 0;

#define ADD(...) (used += (size_t)snprintf(buf + used, used < len ? \
		  len - used : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (d->in_use & IPCW_USE_ATTACHED)
		ADD("%llu attached", (unsigned long long)d->nattch);
	if (d->in_use & IPCW_USE_WAITERS)
		ADD("%s%s%u waiter%s", used ? ", " : "",
		    d->waiters >= IPCW_RMID_WAITERS_MAX ? "at least " : "",
		    d->waiters, d->waiters == 1 ? "" : "s");
	if (d->in_use & IPCW_USE_CREATOR)
		ADD("%screator pid %u alive", used ? ", " : "", d->creator_pid);
	if ((d->in_use & IPCW_USE_LAST_OP) && d->object == IPCW_RMID_SEM)
		ADD("%slast operator pid %u alive (semaphore %d)",
		    used ? ", " : "", d->last_pid, d->last_semnum);
	else if (d->in_use & IPCW_USE_LAST_OP)
		ADD("%slast operator pid %u alive", used ? ", " : "",
		    d->last_pid);
#undef ADD
}

void notify_rmid(struct notifier *n, const struct ipcw_rmid_decision *d,
		 const char *cgroup_path)
{
	char text[1280], use[256], comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	char path[PRINTABLE_LEN(128)];
	bool shm = d->object == IPCW_RMID_SHM;
	struct record r;

	printable(comm, sizeof(comm), d->comm);
	/* a cgroup name may hold control bytes: escaped, as commands are */
	printable(path, sizeof(path), cgroup_path);
	rmid_use_text(d, use, sizeof(use));
	snprintf(text, sizeof(text),
		 "%s: IPC_RMID of %s id %d key 0x%08x (owner uid %u, creator "
		 "uid %u) in use: %s; by pid %u (%s) uid %u cgroup %s%s%llu%s "
		 "(guard_rmid = %s)",
		 d->enforced ? "DENIED EPERM" : "AUDIT (allowed)",
		 shm ? "shared memory segment" : "semaphore set", d->id,
		 (unsigned int)d->key, d->owner_uid, d->cuid, use, d->pid,
		 comm, d->uid, path, cgroup_path[0] ? " (id " : "",
		 (unsigned long long)d->cgroup, cgroup_path[0] ? ")" : "",
		 d->enforced ? "deny" : "audit");
	if (!record_begin(n, &r, d->enforced ? "rmid_denied" : "rmid_audit"))
		return;
	jw_kv_string(r.jw, "guard", d->enforced ? "deny" : "audit");
	jw_kv_bool(r.jw, "enforced", d->enforced);
	jw_kv_int(r.jw, "err", d->err);
	jw_kv_uint(r.jw, "pid", d->pid);
	jw_kv_uint(r.jw, "tid", d->tid);
	jw_kv_string(r.jw, "comm", d->comm);
	jw_kv_uint(r.jw, "uid", d->uid);
	jw_kv_uint(r.jw, "gid", d->gid);
	jw_kv_uint(r.jw, "cgroup_id", d->cgroup);
	jw_kv_string(r.jw, "cgroup", cgroup_path);
	jw_kv_uint(r.jw, "ipcns", d->ipcns);
	jw_kv_string(r.jw, "object", rmid_object_name(d->object));
	jw_kv_int(r.jw, "id", d->id);
	jw_kv_int(r.jw, "key", d->key);
	jw_kv_uint(r.jw, "owner_uid", d->owner_uid);
	jw_kv_uint(r.jw, "cuid", d->cuid);
	jw_kv_bool(r.jw, "attached", d->in_use & IPCW_USE_ATTACHED);
	jw_kv_bool(r.jw, "has_waiters", d->in_use & IPCW_USE_WAITERS);
	jw_kv_bool(r.jw, "creator_alive", d->in_use & IPCW_USE_CREATOR);
	jw_kv_bool(r.jw, "last_op_alive", d->in_use & IPCW_USE_LAST_OP);
	if (shm) {
		jw_kv_uint(r.jw, "nattch", d->nattch);
		jw_kv_uint(r.jw, "cpid", d->creator_pid);
		jw_kv_uint(r.jw, "lpid", d->last_pid);
	} else {
		jw_kv_uint(r.jw, "nsems", d->nsems);
		jw_kv_uint(r.jw, "waiters", d->waiters);
		jw_kv_bool(r.jw, "waiters_capped",
			   d->waiters >= IPCW_RMID_WAITERS_MAX);
		jw_kv_int(r.jw, "last_semnum", d->last_semnum);
		jw_kv_uint(r.jw, "sempid", d->last_pid);
	}
	record_end(n, &r, d->enforced ? LOG_WARNING : LOG_NOTICE, text);
}

void notify_reaped(struct notifier *n, uint32_t ipcns, const struct seg *s,
		   const struct policy_rule *r)
{
	char text[512], a[UNITS_BUF], comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	struct record rec;

	snprintf(text, sizeof(text),
		 "REMOVED orphaned segment id %d key 0x%08x %s owner %u, "
		 "creator pid %d (%s) gone, nothing attached, IPC namespace "
		 "%u: rule %s",
		 s->row.id, (unsigned int)s->row.key,
		 fmt_bytes(a, sizeof(a), s->row.size), s->row.uid, s->row.cpid,
		 s->creator_comm[0] ?
			 printable(comm, sizeof(comm), s->creator_comm) : "?",
		 ipcns, r->name);
	if (!record_begin(n, &rec, "reaped"))
		return;
	jw_kv_string(rec.jw, "rule", r->name);
	jw_kv_uint(rec.jw, "ipcns", ipcns);
	jw_kv_int(rec.jw, "id", s->row.id);
	jw_kv_int(rec.jw, "key", s->row.key);
	jw_kv_uint(rec.jw, "size", s->row.size);
	jw_kv_uint(rec.jw, "owner_uid", s->row.uid);
	jw_kv_uint(rec.jw, "cuid", s->row.cuid);
	jw_kv_int(rec.jw, "cpid", s->row.cpid);
	jw_kv_string(rec.jw, "creator_comm", s->creator_comm);
	jw_kv_int(rec.jw, "ctime", s->row.ctime);
	record_end(n, &rec, LOG_NOTICE, text);
}

void notify_ns_gone(struct notifier *n, const struct gone_ns *g)
{
	char text[512], a[UNITS_BUF];
	struct record rec;

	snprintf(text, sizeof(text),
		 "IPC namespace %u%s%s%s is gone: it freed %llu segments (%s), "
		 "%llu semaphore sets, %llu message queues", g->ipcns,
		 g->owner[0] ? " (" : "", g->owner, g->owner[0] ? ")" : "",
		 (unsigned long long)g->segments,
		 fmt_bytes(a, sizeof(a), g->bytes),
		 (unsigned long long)g->sem_sets,
		 (unsigned long long)g->msg_queues);
	if (!record_begin(n, &rec, "ipcns_gone"))
		return;
	jw_kv_uint(rec.jw, "ipcns", g->ipcns);
	jw_kv_string(rec.jw, "owner", g->owner);
	jw_kv_uint(rec.jw, "segments", g->segments);
	jw_kv_uint(rec.jw, "bytes", g->bytes);
	jw_kv_uint(rec.jw, "sem_sets", g->sem_sets);
	jw_kv_uint(rec.jw, "msg_queues", g->msg_queues);
	record_end(n, &rec, LOG_NOTICE, text);
}

void notify_alert(struct notifier *n, enum alert_kind kind,
		  const struct policy_rule *r, uint32_t ipcns,
		  enum policy_scope scope, uint64_t owner, int id,
		  uint64_t bytes, uint64_t threshold)
{
	char text[512], a[UNITS_BUF], b[UNITS_BUF];
	struct record rec;

	if (kind == ALERT_SEGMENT)
		snprintf(text, sizeof(text),
			 "ALERT segment id %d of uid %llu is %s, at or over %s "
			 "(rule %s)", id, (unsigned long long)owner,
			 fmt_bytes(a, sizeof(a), bytes),
			 fmt_bytes(b, sizeof(b), threshold), r->name);
	else if (kind == ALERT_OWNER)
		snprintf(text, sizeof(text),
			 "ALERT %s %llu holds %s of shared memory, at or over "
			 "%s (rule %s)", policy_scope_name(scope),
			 (unsigned long long)owner,
			 fmt_bytes(a, sizeof(a), bytes),
			 fmt_bytes(b, sizeof(b), threshold), r->name);
	else
		snprintf(text, sizeof(text),
			 "ALERT IPC namespace %u holds %s of shared memory, at "
			 "or over %s (rule %s)", ipcns,
			 fmt_bytes(a, sizeof(a), bytes),
			 fmt_bytes(b, sizeof(b), threshold), r->name);
	if (!record_begin(n, &rec, "alert"))
		return;
	jw_kv_string(rec.jw, "kind", alert_kind_name(kind));
	jw_kv_string(rec.jw, "rule", r->name);
	jw_kv_uint(rec.jw, "ipcns", ipcns);
	if (kind == ALERT_SEGMENT) {
		jw_kv_uint(rec.jw, "owner_uid", owner);
		jw_kv_int(rec.jw, "id", id);
	} else if (kind == ALERT_OWNER) {
		jw_kv_string(rec.jw, "scope", policy_scope_name(scope));
		jw_kv_uint(rec.jw, "owner", owner);
	}
	jw_kv_uint(rec.jw, "bytes", bytes);
	jw_kv_uint(rec.jw, "threshold", threshold);
	record_end(n, &rec, LOG_WARNING, text);
}

static void message(struct notifier *n, int priority, const char *type,
		    int adopted, const char *fmt, va_list ap)
{
	char text[1024];
	struct record rec;

	vsnprintf(text, sizeof(text), fmt, ap);
	if (!record_begin(n, &rec, type))
		return;
	jw_kv_string(rec.jw, "message", text);
	if (adopted >= 0)
		jw_kv_bool(rec.jw, "adopted", adopted);
	/* messages about ipcwatch itself start no --alert-exec */
	jw_end_object(rec.jw);
	jw_destroy(rec.jw);
	fclose(rec.f);
	if (n->json)
		fputs(rec.buf, stdout);
	else
		printf("ipcwatch: %s\n", text);
	fflush(stdout);
	if (n->syslog)
		syslog(priority, "%s", text);
	free(rec.buf);
}

void notify_message(struct notifier *n, int priority, const char *type,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(n, priority, type, -1, fmt, ap);
	va_end(ap);
}

void notify_started(struct notifier *n, bool adopted, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(n, LOG_INFO, "started", adopted, fmt, ap);
	va_end(ap);
}
