// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch limits: the System V IPC limits of the caller's IPC
 * namespace, the use against each, and the hazards of the values.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "json_writer.h"
#include "ipc_limits.h"
#include "sysvipc.h"
#include "units.h"

struct limits_args {
	bool json;
};

enum { OPT_JSON = 0x100 };

static const struct argp_option options[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object", 0 },
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
	"Show the System V IPC limits of this IPC namespace, what is in use\n"
	"against each, and the hazards of the values in force.",
	NULL, NULL, NULL,
};

static void print_text(const struct ipc_limits *l, const struct ipc_usage *u,
		       const struct limit_row *rows, int nrows,
		       const struct hazard *hz, int nhz)
{
	char a[UNITS_BUF], b[UNITS_BUF];
	int i;

	printf("IPC namespace %u, page size %llu, MemTotal %s\n\n",
	       own_ipcns(), (unsigned long long)l->page_size,
	       l->mem_total ? fmt_bytes(a, sizeof(a), l->mem_total) :
			      "unknown");
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
	printf("%-24s %llu %llu %llu %llu (semmsl semmns semopm semmni)\n\n",
	       "kernel.sem", (unsigned long long)l->semmsl,
	       (unsigned long long)l->semmns, (unsigned long long)l->semopm,
	       (unsigned long long)l->semmni);

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
	(void)u;
	printf("\n%s\n", nhz ? "HAZARDS" : "No hazards.");
	for (i = 0; i < nhz; i++)
		printf("  %s: %s\n", hz[i].name, hz[i].text);
}

static void print_json(const struct ipc_limits *l, const struct ipc_usage *u,
		       const struct limit_row *rows, int nrows,
		       const struct hazard *hz, int nhz)
{
	struct json_writer *jw = jw_new(stdout);
	int i;

	if (!jw)
		return;
	jw_start_object(jw);
	jw_kv_string(jw, "type", "limits");
	jw_kv_uint(jw, "ipcns", own_ipcns());
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
	jw_kv_uint(jw, "segments", u->segments);
	jw_kv_uint(jw, "shm_tot", u->shm_tot);
	jw_kv_uint(jw, "sem_sets", u->sem_sets);
	jw_kv_uint(jw, "semaphores", u->sems);
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
	jw_destroy(jw);
}

int cmd_limits(int argc, char **argv)
{
	struct limits_args args = { 0 };
	struct limit_row rows[LIMIT_ROWS];
	struct hazard hz[MAX_HAZARDS];
	struct ipc_limits l;
	struct ipc_usage u;
	char err[256];
	int nrows, nhz;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &args);

	if (read_ipc_limits(&l, err, sizeof(err)) ||
	    read_ipc_usage(&u, err, sizeof(err))) {
		cli_fail("limits", "%s", err);
		return 1;
	}
	nrows = limit_rows(&l, &u, rows);
	nhz = find_hazards(&l, &u, hz);
	if (args.json)
		print_json(&l, &u, rows, nrows, hz, nhz);
	else
		print_text(&l, &u, rows, nrows, hz, nhz);
	return 0;
}
