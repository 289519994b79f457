// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch limits: the System V IPC limits of the caller's IPC
 * namespace (or, with -A, of every one on the host), the use against
 * each, and the hazards of the values.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "json_writer.h"
#include "ipc_limits.h"
#include "ipcns.h"
#include "sysvipc.h"
#include "units.h"

#include <unistd.h>

struct limits_args {
	bool json;
	bool all;
};

enum { OPT_JSON = 0x100 };

static const struct argp_option options[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object", 0 },
	{ "all-namespaces", 'A', NULL, 0,
	  "Every IPC namespace on the host, each read in itself", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct limits_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = cli_error_stream();
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case 'A':
		a->all = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"Show the System V IPC limits of this IPC namespace (with -A, of every\n"
	"IPC namespace on the host), what is in use against each, and the\n"
	"hazards of the values in force.",
	NULL, NULL, NULL,
};

/* One namespace, read: what both outputs print. */
struct ns_limits {
	const struct ipcns *ns;
	struct ipcns_identity id;
	struct ipc_limits l;
	struct ipc_usage u;
	struct limit_row rows[LIMIT_ROWS];
	int nrows;
	struct hazard hz[MAX_HAZARDS];
	int nhz;
	bool whose;		/* -A: say whose namespace it is */
};

static void print_text(const struct ns_limits *n)
{
	const struct ipc_limits *l = &n->l;
	const struct limit_row *rows = n->rows;
	const struct hazard *hz = n->hz;
	int nrows = n->nrows, nhz = n->nhz;
	char a[UNITS_BUF], b[UNITS_BUF];
	int i;

	printf("IPC namespace %u, page size %llu, MemTotal %s\n",
	       n->ns->inum, (unsigned long long)l->page_size,
	       l->mem_total ? fmt_bytes(a, sizeof(a), l->mem_total) :
			      "unknown");
	if (!n->whose)
		;
	else if (n->ns->nprocs || n->id.cgroup[0])
		printf("%u process%s, pid %d, cgroup %s%s%s%s\n",
		       n->ns->nprocs, n->ns->nprocs == 1 ? "" : "es",
		       n->ns->pid, n->id.cgroup[0] ? n->id.cgroup : "unknown",
		       n->id.label[0] ? " (" : "", n->id.label,
		       n->id.label[0] ? ")" : "");
	else
		printf("no process: kept by a %s (%s)\n",
		       ipcns_via_name(n->ns->via), n->ns->path);
	putchar('\n');
	printf("%-24s %s\n", "LIMIT", "VALUE");
	printf("%-24s %-22llu %s\n", "kernel.shmmax",
	       (unsigned long long)l->shmmax,
	       fmt_bytes(a, sizeof(a), l->shmmax));
	printf("%-24s %-22llu %s in pages of %llu bytes\n", "kernel.shmall",
	       (unsigned long long)l->shmall,
	       fmt_bytes(b, sizeof(b), shmall_bytes(l)),
	       (unsigned long long)l->page_size);
	printf("%-24s %-22llu\n", "kernel.shmmni",
	       (unsigned long long)l->shmmni);
	printf("%-24s %-22llu\n", "kernel.shm_rmid_forced",
	       (unsigned long long)l->shm_rmid_forced);
	printf("%-24s %llu %llu %llu %llu (semmsl semmns semopm semmni)\n",
	       "kernel.sem", (unsigned long long)l->semmsl,
	       (unsigned long long)l->semmns, (unsigned long long)l->semopm,
	       (unsigned long long)l->semmni);
	printf("%-24s %-22llu\n", "kernel.msgmni",
	       (unsigned long long)l->msgmni);
	printf("%-24s %-22llu %s\n", "kernel.msgmax",
	       (unsigned long long)l->msgmax,
	       fmt_bytes(a, sizeof(a), l->msgmax));
	printf("%-24s %-22llu %s\n\n", "kernel.msgmnb",
	       (unsigned long long)l->msgmnb,
	       fmt_bytes(a, sizeof(a), l->msgmnb));

	printf("%-12s %-14s %-14s %8s  %s\n", "IN USE", "USED", "LIMIT",
	       "USE%", "AGAINST");
	for (i = 0; i < nrows; i++) {
		const struct limit_row *r = &rows[i];

		if (r->bytes)
			printf("%-12s %-14s %-14s %7.2f%%  %s\n", r->name,
			       fmt_bytes(a, sizeof(a), r->used),
			       fmt_bytes(b, sizeof(b), r->limit),
			       r->fraction * 100, r->sysctl);
		else
			printf("%-12s %-14s %-14s %7.2f%%  %s\n", r->name,
			       fmt_u128(a, sizeof(a), r->used),
			       fmt_u128(b, sizeof(b), r->limit),
			       r->fraction * 100, r->sysctl);
	}
	printf("%-12s %llu messages, %s queued\n", "messages",
	       (unsigned long long)n->u.msg_messages,
	       fmt_bytes(a, sizeof(a), n->u.msg_bytes));
	printf("\n%s\n", nhz ? "HAZARDS" : "No hazards.");
	for (i = 0; i < nhz; i++)
		printf("  %s: %s\n", hz[i].name, hz[i].text);
}

static void print_json(struct json_writer *jw, const struct ns_limits *n)
{
	const struct ipc_limits *l = &n->l;
	const struct ipc_usage *u = &n->u;
	const struct limit_row *rows = n->rows;
	const struct hazard *hz = n->hz;
	int nrows = n->nrows, nhz = n->nhz;
	int i;

	jw_start_object(jw);
	jw_kv_string(jw, "type", "limits");
	ipcns_identity_json(jw, n->ns, &n->id);
	jw_kv_uint(jw, "page_size", l->page_size);
	jw_kv_uint(jw, "mem_total", l->mem_total);
	jw_kv_uint(jw, "shmmax", l->shmmax);
	jw_kv_uint(jw, "shmall", l->shmall);
	jw_kv_u128(jw, "shmall_bytes", shmall_bytes(l));
	jw_kv_uint(jw, "shmmni", l->shmmni);
	jw_kv_uint(jw, "shm_rmid_forced", l->shm_rmid_forced);
	jw_kv_uint(jw, "semmsl", l->semmsl);
	jw_kv_uint(jw, "semmns", l->semmns);
	jw_kv_uint(jw, "semopm", l->semopm);
	jw_kv_uint(jw, "semmni", l->semmni);
	jw_kv_uint(jw, "msgmax", l->msgmax);
	jw_kv_uint(jw, "msgmnb", l->msgmnb);
	jw_kv_uint(jw, "msgmni", l->msgmni);
	jw_kv_uint(jw, "segments", u->segments);
	jw_kv_uint(jw, "shm_tot", u->shm_tot);
	jw_kv_uint(jw, "sem_sets", u->sem_sets);
	jw_kv_uint(jw, "semaphores", u->sems);
	jw_kv_uint(jw, "msg_queues", u->msg_queues);
	jw_kv_uint(jw, "msg_messages", u->msg_messages);
	jw_kv_uint(jw, "msg_bytes", u->msg_bytes);
	jw_name(jw, "usage");
	jw_start_array(jw);
	for (i = 0; i < nrows; i++) {
		jw_start_object(jw);
		jw_kv_string(jw, "name", rows[i].name);
		jw_kv_string(jw, "against", rows[i].sysctl);
		jw_kv_u128(jw, "used", rows[i].used);
		jw_kv_u128(jw, "limit", rows[i].limit);
		jw_kv_bool(jw, "bytes", rows[i].bytes);
		jw_kv_double(jw, "fraction", rows[i].fraction);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "hazards");
	jw_start_array(jw);
	for (i = 0; i < nhz; i++) {
		jw_start_object(jw);
		jw_kv_string(jw, "name", hz[i].name);
		jw_kv_string(jw, "text", hz[i].text);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

/* Read one namespace: 0, or -errno with @err set. */
static int read_ns(const struct ipcns *ns, struct ns_limits *n, char *err,
		   size_t errlen)
{
	struct ipcns_tables t;
	int ret = ipcns_read(ns, IPCNS_LIMITS | IPCNS_USAGE, &t, err, errlen);

	if (ret)
		return ret;
	n->ns = ns;
	n->l = t.limits;
	n->u = t.usage;
	ipcns_tables_free(&t);
	ipcns_identify(ns, &n->id);
	n->nrows = limit_rows(&n->l, &n->u, n->rows);
	n->nhz = find_hazards(&n->l, &n->u, n->hz);
	return 0;
}

int cmd_limits(int argc, char **argv)
{
	struct limits_args args = { 0 };
	struct json_writer *jw = NULL;
	struct ipcns_list list = { 0 };
	struct ipcns own = { .own = true, .via = IPCNS_VIA_PROCESS };
	struct ns_limits *n;
	size_t i, shown = 0;
	char err[256];
	int ret = 0;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &args);

	if (args.all) {
		if (ipcns_discover(&list, err, sizeof(err))) {
			cli_fail("limits", "%s", err);
			return 1;
		}
	} else {
		own.inum = own_ipcns();
		own.pid = getpid();
		own.nprocs = 1;
		list.ns = &own;
		list.n = 1;
	}
	n = calloc(list.n ? list.n : 1, sizeof(*n));
	if (!n) {
		cli_fail("limits", "out of memory");
		ret = 1;
		goto out;
	}
	/* all read before anything is printed: an error leaves no half */
	for (i = 0; i < list.n; i++) {
		int r = read_ns(&list.ns[i], &n[shown], err, sizeof(err));

		/* one gone between finding and reading was never there */
		if (r == -ESRCH && args.all)
			continue;
		if (r) {
			cli_fail("limits", "%s", err);
			ret = 1;
			goto out;
		}
		n[shown++].whose = args.all;
	}
	if (args.json) {
		jw = jw_new(stdout);
		if (!jw) {
			ret = 1;
			goto out;
		}
		if (args.all) {
			jw_start_object(jw);
			jw_kv_string(jw, "type", "limits_all");
			jw_name(jw, "namespaces");
			jw_start_array(jw);
		}
	}
	for (i = 0; i < shown; i++) {
		if (jw) {
			print_json(jw, &n[i]);
			continue;
		}
		if (i)
			printf("\n");
		print_text(&n[i]);
	}
	if (jw && args.all) {
		jw_end_array(jw);
		jw_kv_uint(jw, "count", shown);
		jw_end_object(jw);
	}
out:
	jw_destroy(jw);
	free(n);
	if (args.all)
		ipcns_list_free(&list);
	return ret;
}
