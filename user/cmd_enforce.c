// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch enforce -c FILE: the daemon. Quotas are enforced in the
 * kernel (policy_bpf.c); here the state of this IPC namespace is kept
 * (collector + state.c) for orphan reaping and alerts, decisions are
 * logged, and metrics are exported. SIGHUP reloads the policy (a broken
 * file keeps the old one in force). The policy is pinned in bpffs, so a
 * daemon that dies leaves the quotas in force for its successor to
 * adopt; SIGTERM, SIGINT and --stop take it away.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "alerts.h"
#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "commands.h"
#include "event.h"
#include "metrics.h"
#include "notify.h"
#include "ns_set.h"
#include "policy.h"
#include "policy_bpf.h"
#include "policy_pins.h"
#include "reaper.h"
#include "state.h"
#include "sysvipc.h"
#include "trust.h"
#include "units.h"


struct enforce_args {
	const char *config;
	bool json;
	const char *alert_exec;
	unsigned int alert_timeout_s;
	const char *metrics_file;
	const char *metrics_listen;
	double interval_s;
	double resync_s;
	enum ipcw_mode mode;
	uint32_t max_owners;
	size_t metrics_max_ns;
	const char *pin_dir;
	bool stop;
	bool verbose;
};

/* Decisions seen per rule name, for metrics across reloads. */
struct rule_tally {
	char name[POLICY_NAME_LEN];
	uint64_t n[IPCW_LIMIT_MAX][2];	/* [kind][enforced] */
	uint64_t reaped, reaped_bytes;
	uint64_t alerts[3];
};

struct daemon {
	struct enforce_args *args;
	struct policy *policy;
	struct enforcer *enforcer;
	struct collector *collector;
	/* every IPC namespace on the host, a state each (ns_set.c) */
	struct ns_set set;
	struct ipc_state *cur;		/* the one tick() is at */
	uint64_t mem_total;		/* the host's, for % in the policy */
	struct notifier notify;
	struct metrics_server *http;
	struct rule_tally tally[POLICY_MAX_RULES * 4];
	int ntally;
	uint64_t reloads_ok, reloads_failed;
	uint64_t ticks;			/* passes of tick(), this one included */
	uint64_t metrics_errors;
	uint64_t unaccounted[2];	/* [enforced]: the totals were full */
	uint64_t read_errors;		/* /proc or SHM_INFO reads that failed */
	/* refusals of namespaces summed as "other" that are gone since */
	uint64_t other_refused_gone[IPCW_CREATE_REASON_MAX];
	bool folded_seen;		/* an "other" series was exported */
	bool started;			/* seeded: namespaces found later are new */
	bool read_failing;		/* said once, until a read works */
	bool stop;			/* SIGINT or SIGTERM: detach and leave */
};

enum { OPT_JSON = 0x100, OPT_ALERT_EXEC, OPT_METRICS_FILE,
       OPT_METRICS_LISTEN, OPT_INTERVAL, OPT_RESYNC, OPT_MODE,
       OPT_MAX_OWNERS, OPT_PIN_DIR, OPT_STOP, OPT_ALERT_TIMEOUT,
       OPT_METRICS_MAX_NS };

static const struct argp_option options[] = {
	{ "config", 'c', "FILE", 0, "The policy file (required)", 0 },
	{ "json", OPT_JSON, NULL, 0, "Log records as NDJSON on stdout", 0 },
	{ "alert-exec", OPT_ALERT_EXEC, "PROG", 0,
	  "Run PROG (absolute path, no shell) for every decision, removal "
	  "and alert, the record as JSON on its stdin", 0 },
	{ "alert-timeout", OPT_ALERT_TIMEOUT, "SECONDS", 0,
	  "Kill an --alert-exec program's process group after SECONDS "
	  "(default 10)", 0 },
	{ "metrics-file", OPT_METRICS_FILE, "PATH", 0,
	  "Write Prometheus metrics to PATH (atomic rename) every interval",
	  0 },
	{ "metrics-listen", OPT_METRICS_LISTEN, "[ADDR]:PORT", 0,
	  "Serve HTTP /metrics on ADDR:PORT (no ADDR: 127.0.0.1)", 0 },
	{ "metrics-max-namespaces", OPT_METRICS_MAX_NS, "N", 0,
	  "Series of their own for the N IPC namespaces with the most shared "
	  "memory (default 64); the others are summed as ipcns=\"other\"", 0 },
	{ "interval", OPT_INTERVAL, "SECONDS", 0,
	  "How often to reap, check alerts and write metrics (default 1)", 0 },
	{ "resync", OPT_RESYNC, "SECONDS", 0,
	  "Re-read the segment table this often (default 10)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Events: tracepoint, fentry, kprobe or auto", 0 },
	{ "max-owners", OPT_MAX_OWNERS, "N", 0,
	  "Room for N per-owner totals in the kernel (default 65536); when "
	  "full, shmget() is refused under an enforcing policy", 0 },
	{ "pin-dir", OPT_PIN_DIR, "DIR", 0,
	  "Pin the policy in this bpffs directory, so it outlives the daemon "
	  "(default " PINS_DEFAULT_DIR ")", 0 },
	{ "stop", OPT_STOP, NULL, 0,
	  "Stop the daemon holding --pin-dir and detach its policy", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output on stderr", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct enforce_args *a = state->input;
	char addr[64];
	unsigned int port;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = cli_error_stream();
		break;
	case 'c':
		a->config = arg;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_ALERT_EXEC:
		if (arg[0] != '/' || access(arg, X_OK))
			argp_error(state,
				   "--alert-exec '%s': not an executable "
				   "absolute path", arg);
		a->alert_exec = arg;
		break;
	case OPT_ALERT_TIMEOUT:
		a->alert_timeout_s = (unsigned int)cli_number(state,
			"alert-timeout", arg, 1, 3600);
		break;
	case OPT_METRICS_FILE:
		a->metrics_file = arg;
		break;
	case OPT_METRICS_LISTEN:
		if (metrics_parse_listen(arg, addr, sizeof(addr), &port))
			argp_error(state,
				   "--metrics-listen '%s': expected ADDR:PORT "
				   "or :PORT", arg);
		a->metrics_listen = arg;
		break;
	case OPT_METRICS_MAX_NS:
		a->metrics_max_ns = (size_t)cli_number(state,
			"metrics-max-namespaces", arg, 1, 100000);
		break;
	case OPT_INTERVAL:
		a->interval_s = cli_seconds(state, "interval", arg);
		break;
	case OPT_RESYNC:
		a->resync_s = cli_seconds(state, "resync interval", arg);
		break;
	case OPT_MODE:
		cli_mode(state, arg, &a->mode);
		break;
	case OPT_MAX_OWNERS:
		a->max_owners = (uint32_t)cli_number(state, "max-owners", arg,
						     16, 1U << 24);
		break;
	case OPT_PIN_DIR:
		if (arg[0] != '/')
			argp_error(state, "--pin-dir '%s': not an absolute path",
				   arg);
		a->pin_dir = arg;
		break;
	case OPT_STOP:
		a->stop = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->stop && a->config)
			argp_error(state, "--stop takes no -c FILE");
		if (!a->config && !a->stop)
			argp_error(state, "-c FILE is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"Enforce a policy on System V shared memory: per-owner quotas refused\n"
	"in the kernel (BPF LSM), orphaned segments removed, alerts on large\n"
	"consumers, Prometheus metrics. SIGHUP reloads the policy file; the\n"
	"policy stays in force if the daemon dies, until --stop or SIGTERM.",
	NULL, NULL, NULL,
};

static struct rule_tally *tally(struct daemon *d, const char *name)
{
	int i;

	for (i = 0; i < d->ntally; i++)
		if (!strcmp(d->tally[i].name, name))
			return &d->tally[i];
	if (d->ntally == (int)(sizeof(d->tally) / sizeof(d->tally[0])))
		return &d->tally[d->ntally - 1];
	memset(&d->tally[d->ntally], 0, sizeof(d->tally[0]));
	snprintf(d->tally[d->ntally].name, POLICY_NAME_LEN, "%s", name);
	return &d->tally[d->ntally++];
}

static int on_decision(const struct ipcw_decision *dec, void *ctx)
{
	struct daemon *d = ctx;
	int rule = policy_rule_by_id(d->policy, dec->rule_id);

	if (dec->kind == IPCW_LIMIT_ACCOUNTING)
		d->unaccounted[dec->enforced ? 1 : 0]++;
	else if (rule >= 0 && dec->kind < IPCW_LIMIT_MAX)
		tally(d, d->policy->rules[rule].name)
			->n[dec->kind][dec->enforced ? 1 : 0]++;
	notify_decision(&d->notify, dec, d->policy);
	return 0;
}

static int on_rmid(const struct ipcw_rmid_decision *dec, void *ctx)
{
	struct daemon *d = ctx;
	char dir[PATH_MAX];

	/* the remover's cgroup by name, if it is still where it was */
	if (process_cgroup((int)dec->pid, dir, sizeof(dir)) != dec->cgroup)
		dir[0] = '\0';
	notify_rmid(&d->notify, dec, dir);
	return 0;
}

/* The kernel's record of a segment, read for the reaper and alerts. */
static bool segment_record(const struct seg *s, struct seg_record *out,
			   void *ctx)
{
	struct daemon *d = ctx;
	struct ipcw_charge c;

	if (enforcer_segment(d->enforcer, d->cur->ipcns, s->row.id, &c) ||
	    c.size != s->row.size)
		return false;
	out->rule = policy_rule_by_id(d->policy, c.rule_id);
	memcpy(out->owner, c.owner, sizeof(out->owner));
	return true;
}

static int on_event(const struct ipcw_event *e, void *ctx)
{
	struct daemon *d = ctx;
	struct ipc_state *st = ns_state(&d->set, e->ipcns);

	/* a namespace not adopted yet is read whole when it is */
	if (st)
		state_apply(st, e);
	return 0;
}

/* What the daemon keeps per namespace: its orphans and its alerts. */
struct ns_watch {
	struct reaper reaper;
	struct alerts alerts;
	bool seeded;		/* its older segments are charged */
	/* metrics: 1 series of its own, -1 summed into "other", 0 not yet;
	 * decided once, so counters never jump between series */
	int series;
	char container[96];	/* its label, as it was then */
};

/* The reaper's removals are the administrator's: past the guard. */
static int reaper_exempt(void *ctx, bool on)
{
	return enforcer_exempt_self(ctx, on);
}

static struct ns_watch *watch_of(struct ipc_state *st)
{
	return st->user;
}

static struct ns_watch *new_watch(struct daemon *d, struct ipc_state *st)
{
	struct ns_watch *w = st->user;

	if (!w) {
		w = calloc(1, sizeof(*w));
		if (w) {
			w->reaper.around_rmid = reaper_exempt;
			w->reaper.around_ctx = d->enforcer;
			/*
			 * Found after the start: made after the programs were
			 * attached, so they charged all of it. Seeding it while
			 * it runs would race its own destructions.
			 */
			w->seeded = d->started;
		}
		st->user = w;
	}
	return w;
}

/* A namespace's state goes: its teardown is logged with what it freed. */
static void on_ns_release(struct ipc_state *st, const struct gone_ns *g,
			  void *ctx)
{
	struct daemon *d = ctx;
	struct ns_watch *w = st->user;

	if (w && w->series == -1)
		for (int k = 0; k < IPCW_CREATE_REASON_MAX; k++)
			d->other_refused_gone[k] += st->refused_total[k];
	if (w) {
		reaper_free(&w->reaper);
		alerts_free(&w->alerts);
		free(w);
		st->user = NULL;
	}
	if (g)
		notify_ns_gone(&d->notify, g);
}

static void on_reaped(const struct seg *s, const struct policy_rule *r,
		      void *ctx)
{
	struct daemon *d = ctx;
	struct rule_tally *t = tally(d, r->name);

	t->reaped++;
	t->reaped_bytes += s->row.size;
	notify_reaped(&d->notify, d->cur->ipcns, s, r);
}

static void on_alert(enum alert_kind kind, const struct policy_rule *r,
		     enum policy_scope scope, uint64_t owner, int id,
		     uint64_t bytes, uint64_t threshold, void *ctx)
{
	struct daemon *d = ctx;

	tally(d, r->name)->alerts[kind]++;
	notify_alert(&d->notify, kind, r, d->cur->ipcns, scope, owner, id,
		     bytes, threshold);
}

/* The first line of a multi-line error, for a one-line message. */
static const char *first_line(char *err)
{
	err[strcspn(err, "\n")] = '\0';
	return err;
}

static void do_reload(struct daemon *d)
{
	struct policy *fresh = malloc(sizeof(*fresh));
	char err[8192], *nl;

	if (!fresh)
		return;
	if (trust_file(d->args->config, false, err, sizeof(err)) ||
	    policy_load(d->args->config, d->mem_total, fresh, err,
			sizeof(err)) ||
	    enforcer_set_policy(d->enforcer, fresh, err, sizeof(err))) {
		d->reloads_failed++;
		/* one record, every error in it */
		while ((nl = strchr(err, '\n')) && nl[1])
			*nl = ';';
		err[strcspn(err, "\n")] = '\0';
		notify_message(&d->notify, LOG_ERR, "reload_failed",
			       "policy %s not reloaded, the previous one stays "
			       "in force: %s", d->args->config, err);
		free(fresh);
		return;
	}
	free(d->policy);
	d->policy = fresh;
	d->reloads_ok++;
	notify_message(&d->notify, LOG_NOTICE, "reloaded",
		       "policy %s reloaded: %d rules, guard_rmid %s",
		       d->args->config, fresh->nrules,
		       policy_guard_name(fresh->guard_rmid));
}

/* ---- metrics -------------------------------------------------------------- */

struct owner_emit {
	struct metrics_buf *m;
	const char *scope;
	bool segments;
};

static void emit_owner(uint64_t owner, int64_t bytes, int64_t segments,
		       void *ctx)
{
	struct owner_emit *o = ctx;
	char id[32];

	snprintf(id, sizeof(id), "%llu", (unsigned long long)owner);
	metrics_sample(o->m, (double)(o->segments ? segments : bytes),
		       "scope", o->scope, "owner", id, NULL);
}

/* One namespace's figures, for the per-namespace families. */
struct ns_metrics {
	char ns[16];
	char container[96];
	uint64_t segments, bytes, pages, orphans, orphan_bytes;
	uint64_t shmmax, shmall, shmmni, sem_sets, sems, msg_queues;
	uint64_t corrections;
	uint64_t refused[IPCW_CREATE_REASON_MAX];
};

enum ns_field {
	NSF_SEGMENTS, NSF_BYTES, NSF_PAGES, NSF_ORPHANS, NSF_ORPHAN_BYTES,
	NSF_SHMMAX, NSF_SHMALL, NSF_SHMMNI, NSF_SEM_SETS, NSF_SEMS,
	NSF_MSG_QUEUES,
};

struct ns_family {
	const char *name;
	const char *help;
	enum ns_field field;
	bool summed;		/* a count: namespaces past the bound add up */
	bool counter;
};

static const struct ns_family ns_families[] = {
	{ "ipcwatch_shm_segments", "System V shared memory segments",
	  NSF_SEGMENTS, true, false },
	{ "ipcwatch_shm_bytes", "Bytes in System V shared memory segments",
	  NSF_BYTES, true, false },
	{ "ipcwatch_shm_pages",
	  "Pages counted against kernel.shmall (shm_tot)", NSF_PAGES, true,
	  false },
	{ "ipcwatch_shm_orphaned_segments",
	  "Segments whose creator is gone with nothing attached",
	  NSF_ORPHANS, true, false },
	{ "ipcwatch_shm_orphaned_bytes", "Bytes in orphaned segments",
	  NSF_ORPHAN_BYTES, true, false },
	{ "ipcwatch_shmmax_bytes", "kernel.shmmax", NSF_SHMMAX, false, false },
	{ "ipcwatch_shmall_pages", "kernel.shmall", NSF_SHMALL, false, false },
	{ "ipcwatch_shmmni", "kernel.shmmni", NSF_SHMMNI, false, false },
	{ "ipcwatch_sem_sets", "System V semaphore sets", NSF_SEM_SETS, true,
	  false },
	{ "ipcwatch_semaphores", "System V semaphores in all sets", NSF_SEMS,
	  true, false },
	{ "ipcwatch_msg_queues", "System V message queues", NSF_MSG_QUEUES,
	  true, false },
};

static double ns_value(const struct ns_metrics *v, enum ns_field f)
{
	const uint64_t x[] = {
		[NSF_SEGMENTS] = v->segments, [NSF_BYTES] = v->bytes,
		[NSF_PAGES] = v->pages, [NSF_ORPHANS] = v->orphans,
		[NSF_ORPHAN_BYTES] = v->orphan_bytes,
		[NSF_SHMMAX] = v->shmmax, [NSF_SHMALL] = v->shmall,
		[NSF_SHMMNI] = v->shmmni, [NSF_SEM_SETS] = v->sem_sets,
		[NSF_SEMS] = v->sems, [NSF_MSG_QUEUES] = v->msg_queues,
	};

	return (double)x[f];
}

static void ns_metrics_of(const struct ipc_state *st, struct ns_metrics *v)
{
	size_t i;

	snprintf(v->ns, sizeof(v->ns), "%u", st->ipcns);
	snprintf(v->container, sizeof(v->container), "%s", st->id.label);
	v->segments = st->nsegs;
	for (i = 0; i < st->nsegs; i++)
		v->bytes += st->segs[i].row.size;
	v->pages = st->usage.shm_tot;
	state_orphans(st, &v->orphans, &v->orphan_bytes);
	v->shmmax = st->limits.shmmax;
	v->shmall = st->limits.shmall;
	v->shmmni = st->limits.shmmni;
	v->sem_sets = st->nsets;
	v->sems = st->usage.sems;
	v->msg_queues = st->nmsgs;
	v->corrections = st->corrections;
	memcpy(v->refused, st->refused_total, sizeof(v->refused));
}

static void ns_metrics_add(struct ns_metrics *sum, const struct ns_metrics *v)
{
	int k;

	sum->segments += v->segments;
	sum->bytes += v->bytes;
	sum->pages += v->pages;
	sum->orphans += v->orphans;
	sum->orphan_bytes += v->orphan_bytes;
	sum->sem_sets += v->sem_sets;
	sum->sems += v->sems;
	sum->msg_queues += v->msg_queues;
	sum->corrections += v->corrections;
	for (k = 0; k < IPCW_CREATE_REASON_MAX; k++)
		sum->refused[k] += v->refused[k];
}

static char *render_metrics(struct daemon *d)
{
	static const char *const scopes[] = { "uid", "gid", "cgroup", "ipcns" };
	static const char *const actions[] = { "audited", "denied" };
	size_t nns = d->set.n, shown, r, j;
	struct ns_metrics *v = calloc(nns + 1, sizeof(*v));
	size_t *order = calloc(nns + 1, sizeof(*order));
	uint64_t *bytes = calloc(nns + 1, sizeof(*bytes));
	struct ns_metrics *other;
	struct metrics_buf m;
	struct owner_emit o;
	int i, k, e, s;

	if (!v || !order || !bytes || metrics_begin(&m)) {
		free(v);
		free(order);
		free(bytes);
		return NULL;
	}
	/*
	 * A bound on the series. Which namespaces get their own is decided
	 * once, the largest first: a namespace is never moved between its
	 * own series and "other", so no counter goes back.
	 */
	{
		size_t *cand = calloc(nns + 1, sizeof(*cand));
		size_t *cord = calloc(nns + 1, sizeof(*cord));
		size_t ncand = 0;

		shown = 0;
		for (r = 0; r < nns; r++) {
			struct ns_watch *w = new_watch(d, d->set.st[r]);

			ns_metrics_of(d->set.st[r], &v[r]);
			if (w && w->series == 1)
				order[shown++] = r;
			else if (w && !w->series && cand)
				cand[ncand++] = r;
		}
		for (r = 0; cand && cord && r < ncand; r++)
			bytes[r] = v[cand[r]].bytes;
		if (cand && cord)
			metrics_ns_order(bytes, ncand, ncand, cord);
		for (r = 0; cand && cord && r < ncand; r++) {
			struct ipc_state *st = d->set.st[cand[cord[r]]];
			struct ns_watch *w = watch_of(st);

			w->series = shown < d->args->metrics_max_ns ? 1 : -1;
			snprintf(w->container, sizeof(w->container), "%s",
				 st->id.label);
			if (w->series == 1)
				order[shown++] = cand[cord[r]];
		}
		free(cand);
		free(cord);
	}
	if (shown < nns)
		d->folded_seen = true;	/* "other" exists from now on */
	other = &v[nns];
	snprintf(other->ns, sizeof(other->ns), "other");
	memcpy(other->refused, d->other_refused_gone, sizeof(other->refused));
	for (r = 0; r < nns; r++) {
		struct ns_watch *w = watch_of(d->set.st[r]);

		if (w)
			snprintf(v[r].container, sizeof(v[r].container), "%s",
				 w->container);
		if (w && w->series == -1)
			ns_metrics_add(other, &v[r]);
	}

	metrics_family(&m, "ipcwatch_info", "gauge",
		       "ipcwatch version and event mode");
	metrics_sample(&m, 1, "version", IPCWATCH_VERSION, "mode",
		       mode_name(collector_mode(d->collector)), NULL);
	metrics_family(&m, "ipcwatch_ipc_namespaces", "gauge",
		       "IPC namespaces watched; those past "
		       "--metrics-max-namespaces are summed as ipcns=\"other\"");
	metrics_sample(&m, (double)nns, NULL);
	metrics_family(&m, "ipcwatch_ipc_namespaces_folded", "gauge",
		       "IPC namespaces without series of their own");
	metrics_sample(&m, (double)(nns - shown), NULL);
	for (j = 0; j < sizeof(ns_families) / sizeof(ns_families[0]); j++) {
		const struct ns_family *f = &ns_families[j];

		metrics_family(&m, f->name, f->counter ? "counter" : "gauge",
			       f->help);
		for (r = 0; r < shown; r++)
			metrics_sample(&m, ns_value(&v[order[r]], f->field),
				       "ipcns", v[order[r]].ns, "container",
				       v[order[r]].container, NULL);
		/* limits are not summed: no "other" for them */
		if (shown < nns && f->summed && d->folded_seen)
			metrics_sample(&m, ns_value(other, f->field), "ipcns",
				       "other", "container", "", NULL);
	}

	metrics_family(&m, "ipcwatch_owner_shm_bytes", "gauge",
		       "Bytes of shared memory charged to each owner, all "
		       "namespaces");
	o.m = &m;
	o.segments = false;
	for (s = 0; s < 4; s++) {
		o.scope = scopes[s];
		enforcer_for_each_total(d->enforcer, s, emit_owner, &o);
	}
	metrics_family(&m, "ipcwatch_owner_shm_segments", "gauge",
		       "Segments charged to each owner, all namespaces");
	o.segments = true;
	for (s = 0; s < 4; s++) {
		o.scope = scopes[s];
		enforcer_for_each_total(d->enforcer, s, emit_owner, &o);
	}

	metrics_family(&m, "ipcwatch_policy_decisions_total", "counter",
		       "shmget() calls that broke a rule, refused or audited");
	for (i = 0; i < d->ntally; i++)
		for (k = 0; k < IPCW_LIMIT_MAX; k++)
			for (e = 0; e < 2; e++)
				metrics_sample(&m, (double)d->tally[i].n[k][e],
					       "rule", d->tally[i].name, "limit",
					       limit_kind_name(k), "action",
					       actions[e], NULL);
	metrics_family(&m, "ipcwatch_policy_unaccounted_total", "counter",
		       "shmget() calls the per-owner totals could not take: "
		       "refused under an enforcing policy, else allowed");
	metrics_sample(&m, (double)d->unaccounted[0], "action", "allowed",
		       NULL);
	metrics_sample(&m, (double)d->unaccounted[1], "action", "denied",
		       NULL);
	metrics_family(&m, "ipcwatch_policy_credit_failures_total", "counter",
		       "Charges that could not be given back (totals left "
		       "high: refuses more, never less)");
	metrics_sample(&m, (double)enforcer_credit_failures(d->enforcer),
		       NULL);
	/* the kernel's counts: removals judged while no daemon ran too */
	metrics_family(&m, "ipcwatch_rmid_guarded_total", "counter",
		       "IPC_RMID of objects in use by another owner, by the "
		       "guard_rmid guard");
	for (k = 0; k < IPCW_RMID_OBJECTS; k++)
		for (e = 0; e < 2; e++)
			metrics_sample(&m, (double)enforcer_rmid_count(
					       d->enforcer, k, e),
				       "object", rmid_object_name(k),
				       "action", actions[e], NULL);
	metrics_family(&m, "ipcwatch_reaped_segments_total", "counter",
		       "Orphaned segments removed");
	for (i = 0; i < d->ntally; i++)
		metrics_sample(&m, (double)d->tally[i].reaped, "rule",
			       d->tally[i].name, NULL);
	metrics_family(&m, "ipcwatch_reaped_bytes_total", "counter",
		       "Bytes of orphaned segments removed");
	for (i = 0; i < d->ntally; i++)
		metrics_sample(&m, (double)d->tally[i].reaped_bytes, "rule",
			       d->tally[i].name, NULL);
	metrics_family(&m, "ipcwatch_alerts_total", "counter",
		       "Thresholds crossed");
	for (i = 0; i < d->ntally; i++)
		for (k = 0; k < 3; k++)
			metrics_sample(&m, (double)d->tally[i].alerts[k],
				       "rule", d->tally[i].name, "kind",
				       alert_kind_name(k), NULL);
	metrics_family(&m, "ipcwatch_shmget_refusals_total", "counter",
		       "shmget() calls the kernel refused, by reason");
	for (k = 1; k < IPCW_CREATE_REASON_MAX; k++) {
		for (r = 0; r < shown; r++)
			metrics_sample(&m, (double)v[order[r]].refused[k],
				       "ipcns", v[order[r]].ns, "container",
				       v[order[r]].container, "reason",
				       shm_reason_name(k), NULL);
		if (d->folded_seen)
			metrics_sample(&m, (double)other->refused[k], "ipcns",
				       "other", "container", "", "reason",
				       shm_reason_name(k), NULL);
	}
	metrics_family(&m, "ipcwatch_lost_events_total", "counter",
		       "Records the kernel could not pass to ipcwatch");
	metrics_sample(&m, (double)collector_lost(d->collector), "source",
		       "events", NULL);
	metrics_sample(&m, (double)enforcer_lost(d->enforcer), "source",
		       "decisions", NULL);
	metrics_family(&m, "ipcwatch_ticks_total", "counter",
		       "Passes of the reaper, the alerts and the metrics since "
		       "start (one per --interval)");
	metrics_sample(&m, (double)d->ticks, NULL);
	metrics_family(&m, "ipcwatch_alert_exec_started_total", "counter",
		       "--alert-exec programs started");
	metrics_sample(&m, (double)d->notify.exec_started, NULL);
	metrics_family(&m, "ipcwatch_alert_exec_skipped_total", "counter",
		       "--alert-exec runs not made or not fed: too many "
		       "running, the program not trusted, or a failed start");
	metrics_sample(&m, (double)d->notify.exec_skipped, NULL);
	metrics_family(&m, "ipcwatch_alert_exec_timeouts_total", "counter",
		       "--alert-exec programs killed after --alert-timeout");
	metrics_sample(&m, (double)d->notify.exec_timeouts, NULL);

	metrics_family(&m, "ipcwatch_policy_reloads_total", "counter",
		       "Policy reloads on SIGHUP");
	metrics_sample(&m, (double)d->reloads_ok, "result", "ok", NULL);
	metrics_sample(&m, (double)d->reloads_failed, "result", "error", NULL);
	metrics_family(&m, "ipcwatch_resync_corrections_total", "counter",
		       "Differences between the event stream and the kernel's "
		       "table found by resyncs, all namespaces");
	{
		uint64_t corrections = 0;

		for (r = 0; r < nns; r++)
			corrections += v[r].corrections;
		metrics_sample(&m, (double)corrections, NULL);
	}
	metrics_family(&m, "ipcwatch_read_errors_total", "counter",
		       "Reads of /proc or SHM_INFO that failed (retried)");
	metrics_sample(&m, (double)d->read_errors, NULL);
	free(v);
	free(order);
	free(bytes);
	if (metrics_end(&m)) {
		metrics_free(&m);
		return NULL;
	}
	return m.text;
}

static void export_metrics(struct daemon *d)
{
	char *text = render_metrics(d), err[256];

	if (!text)
		return;
	if (d->args->metrics_file &&
	    metrics_write_file(d->args->metrics_file, text, err, sizeof(err))) {
		/* say it once, not every interval */
		if (!d->metrics_errors++)
			notify_message(&d->notify, LOG_ERR, "error",
				       "metrics file: %s", err);
	}
	if (d->http)
		metrics_publish(d->http, text);
	free(text);
}

/* ---- the daemon ----------------------------------------------------------- */

/* A read of the kernel's tables failed: said once, retried each tick. */
static void read_failed(struct daemon *d, const char *err)
{
	d->read_errors++;
	if (d->read_failing)
		return;
	d->read_failing = true;
	notify_message(&d->notify, LOG_WARNING, "error",
		       "%s (retried every interval; quotas are unaffected)",
		       err);
}

static void read_worked(struct daemon *d)
{
	if (!d->read_failing)
		return;
	d->read_failing = false;
	notify_message(&d->notify, LOG_NOTICE, "recovered",
		       "reading the IPC tables works again (%llu failed reads)",
		       (unsigned long long)d->read_errors);
}

/*
 * One namespace's pass: its tables read, its orphans reaped, its alerts
 * checked. -ESRCH: it went away meanwhile.
 */
static int tick_ns(struct daemon *d, struct ipc_state *st, bool resync)
{
	struct ns_watch *w = new_watch(d, st);
	char err[256];
	int ret;

	st->lost = collector_lost(d->collector);
	ret = resync ? state_resync(st, err, sizeof(err)) : 0;
	/*
	 * No reaping or alerts on a table that could not be read. Another
	 * namespace's tables take a child to read: at every resync only,
	 * its segments are the events' between them.
	 */
	if (!ret && st->foreign && !resync)
		state_check_creators(st);
	else if (!ret)
		ret = state_refresh(st, err, sizeof(err));
	if (ret == -ESRCH)
		return ret;
	if (ret || !w) {
		read_failed(d, ret ? err : "out of memory");
		return ret ? ret : -ENOMEM;
	}
	/* seeded at start, or found later (then new, charged by the kernel) */
	if (!w->seeded) {
		size_t s_n = 0, u_n = 0;

		ret = enforcer_seed(d->enforcer, d->policy,
				    st->foreign ? &st->ns : NULL, st->ipcns,
				    &s_n, &u_n, err, sizeof(err));
		if (ret == -ESRCH)
			return ret;
		if (ret) {
			read_failed(d, err);
			return ret;
		}
		w->seeded = true;
		if (s_n || u_n)
			notify_message(&d->notify, LOG_NOTICE, "seeded",
				       "IPC namespace %u found late: %zu "
				       "existing segments charged, %zu could "
				       "not be", st->ipcns, s_n, u_n);
	}
	d->cur = st;
	reaper_tick(&w->reaper, st, d->policy, mono_ns(), segment_record,
		    on_reaped, d);
	alerts_tick(&w->alerts, st, d->policy, segment_record, on_alert, d);
	return 0;
}

static void tick(struct daemon *d, uint64_t *next_resync)
{
	bool resync = mono_ns() >= *next_resync, failed = false;
	char err[256];
	size_t i;

	/* apply what is queued first, so a resync finds no false drift */
	collector_poll(d->collector, 0);
	d->set.lost = collector_lost(d->collector);
	/* namespaces come and go: looked for at every resync */
	if (resync && ns_sync(&d->set, err, sizeof(err))) {
		read_failed(d, err);
		failed = true;
	} else if (resync && d->set.failed) {
		/* the others are watched; this one is tried again */
		read_failed(d, d->set.failed_err);
		failed = true;
	}
	for (i = d->set.n; i-- > 0;) {
		int ret = tick_ns(d, d->set.st[i], resync);

		if (ret == -ESRCH)
			ns_gone(&d->set, i);
		else if (ret)
			failed = true;
	}
	if (!failed)
		read_worked(d);
	if (resync)
		*next_resync = mono_ns() + (uint64_t)(d->args->resync_s * 1e9);
	d->cur = NULL;
	d->ticks++;
	export_metrics(d);
	notify_reap_children(&d->notify, mono_ns());
}

/* What arrived on the signalfd. */
static void on_signals(struct daemon *d, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			do_reload(d);
			break;
		case SIGCHLD:
			notify_reap_children(&d->notify, mono_ns());
			break;
		default:
			d->stop = true;
		}
	}
}

/*
 * Block the signals the daemon handles before anything is loaded (a
 * SIGHUP during start is a reload once running, never a death); they
 * arrive on the returned signalfd, or -1.
 */
static int take_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int watch_fd(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* The one event loop: signals, events, decisions, and the ticks. */
static int run(struct daemon *d, int sfd)
{
	uint64_t next_tick = mono_ns(), next_resync, now;
	struct epoll_event evs[4];
	int ep = epoll_create1(EPOLL_CLOEXEC), n, i, ret = 0;

	if (ep < 0 || watch_fd(ep, sfd) ||
	    watch_fd(ep, collector_fd(d->collector)) ||
	    watch_fd(ep, enforcer_fd(d->enforcer))) {
		notify_message(&d->notify, LOG_ERR, "error",
			       "cannot watch the event buffers: %s",
			       strerror(errno));
		if (ep >= 0)
			close(ep);
		return -1;
	}
	next_resync = mono_ns() + (uint64_t)(d->args->resync_s * 1e9);
	while (!d->stop) {
		now = mono_ns();
		n = epoll_wait(ep, evs, 4, now >= next_tick ? 0 :
			       (int)((next_tick - now) / 1000000 + 1));
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n; i++)
			if (evs[i].data.fd == sfd)
				on_signals(d, sfd);
		ret = collector_poll(d->collector, 0);
		if (ret >= 0)
			ret = enforcer_poll(d->enforcer, 0);
		if (ret < 0)
			break;
		ret = 0;
		if (d->stop || mono_ns() < next_tick)
			continue;
		tick(d, &next_resync);
		next_tick = mono_ns() + (uint64_t)(d->args->interval_s * 1e9);
	}
	close(ep);
	if (ret < 0)
		notify_message(&d->notify, LOG_ERR, "error",
			       "reading events: %s", strerror(-ret));
	return ret;
}

/*
 * A start-up read of /proc or the IPC limits failed: whether to try it
 * again (a transient error is logged and retried, a few times).
 */
static bool read_again(int *tries, const char *err)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };

	if (++*tries >= 5)
		return false;
	fprintf(stderr, "ipcwatch enforce: %s; trying again\n", err);
	nanosleep(&pause, NULL);
	return true;
}

/* @detach: take the policy away; else it stays pinned, in force. */
static void shutdown_daemon(struct daemon *d, bool detach)
{
	metrics_stop(d->http);
	collector_close(d->collector);
	if (detach)
		enforcer_detach(d->enforcer);
	else
		enforcer_close(d->enforcer);
	ns_set_free(&d->set);
	free(d->policy);
}

/* Whether the daemon of @info is gone, waiting up to @ms for it. */
static bool wait_gone(const struct ipcw_pin_info *info, int ms)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (; ms > 0 && pins_holder_alive(info); ms -= 20)
		nanosleep(&tick, NULL);
	return !pins_holder_alive(info);
}

/* --stop: the daemon holding @dir leaves, and the pins go with it. */
static int stop_pinned(const char *dir)
{
	struct ipcw_pin_info info;
	struct stat st;
	bool had_daemon;
	uint32_t stopped;
	int ret, lock_fd;

	if (stat(dir, &st) && errno == ENOENT) {
		fprintf(stderr, "ipcwatch enforce: nothing pinned in %s\n",
			dir);
		return 0;
	}
	had_daemon = !pins_read_info(dir, &info) && pins_holder_alive(&info);
	stopped = info.pid;
	if (had_daemon) {
		/* SIGTERM: it logs its last decisions and detaches itself */
		kill((pid_t)info.pid, SIGTERM);
		if (!wait_gone(&info, 10000)) {
			fprintf(stderr, "ipcwatch enforce: pid %u did not stop "
				"within 10 s: killed\n", info.pid);
			kill((pid_t)info.pid, SIGKILL);
			wait_gone(&info, 2000);
		}
	}
	lock_fd = pins_lock(dir);
	/* a start may have taken the pins since: its daemon stays */
	if (!pins_read_info(dir, &info) && pins_holder_alive(&info) &&
	    (!had_daemon || info.pid != stopped)) {
		if (lock_fd >= 0)
			close(lock_fd);
		cli_fail("enforce", "a new daemon (pid %u) took the policy "
			 "pinned in %s meanwhile: run --stop again to stop it",
			 info.pid, dir);
		return 1;
	}
	ret = pins_remove(dir);
	if (lock_fd >= 0)
		close(lock_fd);
	if (ret) {
		cli_fail("enforce", "cannot remove %s: %s", dir,
			 strerror(-ret));
		return 1;
	}
	if (had_daemon)
		fprintf(stderr, "ipcwatch enforce: stopped pid %u; the policy "
			"is detached\n", stopped);
	else
		fprintf(stderr, "ipcwatch enforce: no daemon was running; the "
			"policy pinned in %s is detached\n", dir);
	return 0;
}

int cmd_enforce(int argc, char **argv)
{
	struct enforce_args a = { .interval_s = 1, .resync_s = 10,
				  .alert_timeout_s = NOTIFY_EXEC_TIMEOUT_S,
				  .max_owners = IPCW_OWNERS_DEFAULT,
				  .metrics_max_ns = 64,
				  .pin_dir = PINS_DEFAULT_DIR };
	struct collector_opts copts = { 0 };
	struct enforcer_opts eopts = { 0 };
	struct daemon *d;
	char err[8192];
	size_t seeded = 0, unaccounted = 0;
	int tries;
	int sfd, ret;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.stop)
		return stop_pinned(a.pin_dir);
	/* before anything is loaded: see take_signals() */
	sfd = take_signals();
	if (sfd < 0) {
		cli_fail("enforce", "cannot take signals: %s", strerror(errno));
		return 1;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		cli_fail("enforce", "out of memory");
		return 1;
	}
	d->args = &a;
	setvbuf(stdout, NULL, _IOLBF, 0);

	d->set.all = true;
	d->set.release = on_ns_release;
	d->set.ctx = d;
	{
		struct ipc_limits l;

		for (tries = 0; read_ipc_limits(&l, err, sizeof(err));)
			if (!read_again(&tries, err)) {
				cli_fail("enforce", "%s", err);
				free(d);
				return 1;
			}
		d->mem_total = l.mem_total;
	}
	/* a file others can write decides what root enforces or runs */
	if (trust_file(a.config, false, err, sizeof(err))) {
		cli_fail("enforce", "policy not trusted: %s", err);
		free(d);
		return 1;
	}
	if (a.alert_exec && trust_file(a.alert_exec, true, err, sizeof(err))) {
		cli_fail("enforce", "--alert-exec not trusted: %s", err);
		free(d);
		return 1;
	}
	if (a.metrics_file &&
	    metrics_file_check(a.metrics_file, err, sizeof(err))) {
		cli_fail("enforce", "--metrics-file: %s", err);
		free(d);
		return 1;
	}
	d->policy = malloc(sizeof(*d->policy));
	if (!d->policy ||
	    policy_load(a.config, d->mem_total, d->policy, err,
			sizeof(err))) {
		cli_fail("enforce", "%s (ipcwatch policy check lists every "
			 "error)", d->policy ? first_line(err) : "out of memory");
		free(d->policy);
		free(d);
		return 1;
	}
	notify_init(&d->notify, a.json, a.alert_exec, a.alert_timeout_s);

	eopts.max_owners = a.max_owners;
	eopts.verbose = a.verbose;
	eopts.pin_dir = a.pin_dir;
	eopts.on_rmid = on_rmid;
	d->enforcer = enforcer_open(d->policy, on_decision, d, &eopts, err,
				    sizeof(err));
	if (!d->enforcer) {
		cli_fail("enforce", "%s", err);
		goto fail;
	}
	/* said at once: gone whether or not this start succeeds */
	if (enforcer_discarded(d->enforcer) == UINT32_MAX)
		notify_message(&d->notify, LOG_WARNING, "pins_discarded",
			       "removed the incomplete pins in %s of a daemon "
			       "that died while pinning", a.pin_dir);
	else if (enforcer_discarded(d->enforcer))
		notify_message(&d->notify, LOG_WARNING, "pins_discarded",
			       "removed the policy pinned in %s by pid %u, "
			       "which died before it had seeded its totals",
			       a.pin_dir, enforcer_discarded(d->enforcer));
	copts.mode = a.mode;
	copts.verbose = a.verbose;
	d->collector = collector_open(&copts, on_event, d, err, sizeof(err));
	if (!d->collector) {
		cli_fail("enforce", "%s", err);
		goto fail;
	}
	/*
	 * Both attached: now nothing slips between them and the tables.
	 * Adopted totals are exact already: the pinned programs never
	 * stopped charging.
	 */
	/*
	 * A namespace there before the programs that cannot be read now is
	 * never seeded (found later means new): its owners' segments would
	 * be missing from their totals. Undecidable, so no start. Adopted
	 * totals need no seeding.
	 */
	for (tries = 0;
	     (ret = ns_sync(&d->set, err, sizeof(err))) ||
	     (d->set.failed && !enforcer_adopted(d->enforcer));)
		if (!read_again(&tries, ret ? err : d->set.failed_err)) {
			if (ret)
				cli_fail("enforce", "%s", err);
			else
				cli_fail("enforce",
					 "%s%s: its segments cannot be charged",
					 d->set.failed_err,
					 d->set.failed > 1 ?
					 " (and more namespaces)" : "");
			goto fail;
		}
	/* every namespace's segments; a failed seed can be run again */
	for (size_t k = 0; !enforcer_adopted(d->enforcer) && k < d->set.n;
	     k++) {
		struct ipc_state *st = d->set.st[k];
		size_t s_n = 0, u_n = 0;

		for (tries = 0;
		     (ret = enforcer_seed(d->enforcer, d->policy,
					  st->foreign ? &st->ns : NULL,
					  st->ipcns, &s_n, &u_n, err,
					  sizeof(err)));) {
			/* gone since it was found: nothing of it to seed */
			if (ret == -ESRCH)
				break;
			if (!read_again(&tries, err)) {
				cli_fail("enforce", "%s", err);
				goto fail;
			}
		}
		seeded += s_n;
		unaccounted += u_n;
		if (new_watch(d, st))
			watch_of(st)->seeded = true;
	}
	/* adopted: the pinned programs never stopped charging */
	for (size_t k = 0; enforcer_adopted(d->enforcer) && k < d->set.n; k++)
		if (new_watch(d, d->set.st[k]))
			watch_of(d->set.st[k])->seeded = true;
	d->started = true;
	if (d->set.failed)
		notify_message(&d->notify, LOG_WARNING, "error",
			       "%s%s; tried again at every resync",
			       d->set.failed_err,
			       d->set.failed > 1 ? " (and more namespaces)" :
						   "");
	if (a.metrics_listen) {
		d->http = metrics_listen(a.metrics_listen, err, sizeof(err));
		if (!d->http) {
			cli_fail("enforce", "%s", err);
			goto fail;
		}
	}

	/*
	 * Seeded, the policy is judged on what could not be charged; an
	 * adopted policy is replaced only now that nothing else can fail.
	 */
	if (enforcer_adopted(d->enforcer) ?
	    enforcer_set_policy(d->enforcer, d->policy, err, sizeof(err)) :
	    enforcer_policy_fits(d->enforcer, d->policy, err, sizeof(err))) {
		cli_fail("enforce", "%s", err);
		goto fail;
	}
	/* seeded: a restart after this adopts the pins, before it not */
	ret = enforcer_ready(d->enforcer);
	if (ret) {
		cli_fail("enforce", "cannot mark the pins in %s complete: %s",
			 a.pin_dir, strerror(-ret));
		goto fail;
	}
	/* a scrape right after "started" finds the totals, not nothing */
	export_metrics(d);
	if (enforcer_adopted(d->enforcer))
		notify_started(&d->notify, true,
			       "enforcing %s: %d rules, guard_rmid %s, adopted "
			       "the policy pinned in %s with its totals, %s "
			       "events", a.config, d->policy->nrules,
			       policy_guard_name(d->policy->guard_rmid),
			       a.pin_dir,
			       mode_name(collector_mode(d->collector)));
	else
		notify_started(&d->notify, false,
			       "enforcing %s: %d rules, guard_rmid %s, %zu "
			       "existing segments charged in %zu IPC "
			       "namespaces, %s events", a.config,
			       d->policy->nrules,
			       policy_guard_name(d->policy->guard_rmid), seeded,
			       d->set.n,
			       mode_name(collector_mode(d->collector)));
	if (d->http)
		fprintf(stderr, "ipcwatch enforce: metrics on port %u\n",
			metrics_port(d->http));
	fprintf(stderr, "ipcwatch enforce: watching in %s mode\n",
		mode_name(collector_mode(d->collector)));

	ret = run(d, sfd);
	/* what the kernel already decided is logged before leaving */
	enforcer_poll(d->enforcer, 0);
	if (!ret)
		export_metrics(d);
	shutdown_daemon(d, d->stop);
	if (d->stop)
		notify_message(&d->notify, LOG_INFO, "stopped",
			       "stopped; the policy programs are detached");
	else
		notify_message(&d->notify, LOG_ERR, "stopped",
			       "stopped on an error; the policy stays in force, "
			       "pinned in %s", a.pin_dir);
	free(d);
	close(sfd);
	return ret ? 1 : 0;
fail:
	/* a fresh start leaves nothing; an adopted policy stays in force */
	shutdown_daemon(d, d->enforcer && !enforcer_adopted(d->enforcer));
	free(d);
	close(sfd);
	return 1;
}
