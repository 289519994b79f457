// SPDX-License-Identifier: GPL-2.0
#include "top_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "event_format.h"
#include "printable.h"
#include "units.h"

static const char *const column_names[COL_MAX] = {
	[COL_ID] = "id", [COL_KEY] = "key", [COL_OWNER] = "owner",
	[COL_CPID] = "cpid", [COL_COMMAND] = "command", [COL_SIZE] = "size",
	[COL_SHMMAX_SHARE] = "shmmax_share", [COL_NATTCH] = "nattch",
	[COL_STATUS] = "status", [COL_AGE] = "age",
	[COL_ATTACHED] = "attached", [COL_DETACHED] = "detached",
};

const char *seg_column_name(enum seg_column col)
{
	return col < COL_MAX ? column_names[col] : "?";
}

int parse_seg_column(const char *name, enum seg_column *col)
{
	int i;

	for (i = 0; i < COL_MAX; i++)
		if (!strcmp(name, column_names[i])) {
			*col = i;
			return 0;
		}
	return -1;
}

/* Status as a short word list: "dest,locked,orphaned" or "-". */
static const char *seg_status(const struct seg *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", seg_dest(s) ? "dest," : "",
		 seg_locked(s) ? "locked," : "",
		 seg_orphaned(s) ? "orphaned," : "");
	if (buf[0])
		buf[strlen(buf) - 1] = '\0';
	else
		snprintf(buf, len, "-");
	return buf;
}

static int status_rank(const struct seg *s)
{
	return seg_dest(s) * 4 + seg_locked(s) * 2 + seg_orphaned(s);
}

/* "3s", "5m", "2h", "4d"; "-" for never */
static const char *fmt_age(char *buf, size_t len, int64_t secs, bool never)
{
	if (never)
		snprintf(buf, len, "-");
	else if (secs < 120)
		snprintf(buf, len, "%llds", (long long)(secs < 0 ? 0 : secs));
	else if (secs < 7200)
		snprintf(buf, len, "%lldm", (long long)secs / 60);
	else if (secs < 172800)
		snprintf(buf, len, "%lldh", (long long)secs / 3600);
	else
		snprintf(buf, len, "%lldd", (long long)secs / 86400);
	return buf;
}

static const struct ipc_state *sort_state;
static const struct view_opts *sort_opts;

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int compare_segs(const void *pa, const void *pb)
{
	const struct seg *a = &sort_state->segs[*(const size_t *)pa];
	const struct seg *b = &sort_state->segs[*(const size_t *)pb];
	int c;

	switch (sort_opts->sort) {
	case COL_KEY: c = CMP((unsigned)a->row.key, (unsigned)b->row.key); break;
	case COL_OWNER: c = CMP(a->row.uid, b->row.uid); break;
	case COL_CPID: c = CMP(a->row.cpid, b->row.cpid); break;
	case COL_COMMAND: c = strcmp(a->creator_comm, b->creator_comm); break;
	case COL_SIZE:
	case COL_SHMMAX_SHARE: c = CMP(a->row.size, b->row.size); break;
	case COL_NATTCH: c = CMP(a->row.nattch, b->row.nattch); break;
	case COL_STATUS: c = CMP(status_rank(a), status_rank(b)); break;
	/* age: oldest first means smallest ctime first */
	case COL_AGE: c = CMP(b->row.ctime, a->row.ctime); break;
	case COL_ATTACHED: c = CMP(a->row.atime, b->row.atime); break;
	case COL_DETACHED: c = CMP(a->row.dtime, b->row.dtime); break;
	default: c = 0;
	}
	if (!c)
		c = CMP(a->row.id, b->row.id);
	return sort_opts->reverse ? -c : c;
}

size_t view_seg_order(const struct ipc_state *st, const struct view_opts *o,
		      size_t *order)
{
	size_t i, n = 0;

	for (i = 0; i < st->nsegs; i++)
		if (!o->filter_owner || st->segs[i].row.uid == o->owner)
			order[n++] = i;
	sort_state = st;
	sort_opts = o;
	qsort(order, n, sizeof(*order), compare_segs);
	return n;
}

void view_header(const struct ipc_state *st, const struct view_opts *o,
		 line_fn emit, void *ctx)
{
	const struct ipc_limits *l = &st->limits;
	char line[512], a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], d[UNITS_BUF];
	uint64_t orphans, orphan_bytes;
	size_t i, len;

	snprintf(line, sizeof(line),
		 "ipcwatch top - IPC namespace %u - %s mode - every %.1fs%s",
		 st->ipcns, o->mode, o->interval_s,
		 o->filter_owner ? " - owner filter on" : "");
	emit(ctx, line, true);
	if (st->identified) {
		if (st->ns.nprocs)
			snprintf(line, sizeof(line),
				 "%s%s%u process%s, pid %d, cgroup %.200s",
				 st->id.label, st->id.label[0] ? ", " : "",
				 st->ns.nprocs, st->ns.nprocs == 1 ? "" : "es",
				 st->ns.pid,
				 st->id.cgroup[0] ? st->id.cgroup : "unknown");
		else
			snprintf(line, sizeof(line),
				 "no process: kept by a %s (%.200s)",
				 ipcns_via_name(st->ns.via), st->ns.path);
		emit(ctx, line, false);
	}
	snprintf(line, sizeof(line),
		 "segments %llu/%llu   shm_tot %llu pages, %s of %s   "
		 "largest %s of shmmax %s",
		 (unsigned long long)st->nsegs,
		 (unsigned long long)l->shmmni,
		 (unsigned long long)st->usage.shm_tot,
		 fmt_bytes(a, sizeof(a), (unsigned __int128)st->usage.shm_tot *
				       l->page_size),
		 fmt_bytes(b, sizeof(b), shmall_bytes(l)),
		 fmt_bytes(c, sizeof(c), state_largest_seg(st)),
		 fmt_bytes(d, sizeof(d), l->shmmax));
	emit(ctx, line, false);
	state_orphans(st, &orphans, &orphan_bytes);
	snprintf(line, sizeof(line),
		 "sem sets %llu/%llu   semaphores %llu/%llu   msg queues "
		 "%llu/%llu   orphaned %llu (%s)   lost %llu   resync "
		 "corrections %llu",
		 (unsigned long long)st->nsets, (unsigned long long)l->semmni,
		 (unsigned long long)st->usage.sems,
		 (unsigned long long)l->semmns,
		 (unsigned long long)st->nmsgs, (unsigned long long)l->msgmni,
		 (unsigned long long)orphans,
		 fmt_bytes(a, sizeof(a), orphan_bytes),
		 (unsigned long long)st->lost,
		 (unsigned long long)st->corrections);
	emit(ctx, line, orphans > 0 || st->lost > 0);
	len = (size_t)snprintf(line, sizeof(line), "refused this interval:");
	for (i = 0; i < IPCW_CREATE_REASON_MAX; i++)
		if (st->refused[i] && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						" %s %llu", shm_reason_name(i),
						(unsigned long long)st->refused[i]);
	if (len == strlen("refused this interval:"))
		snprintf(line + len, sizeof(line) - len, " none");
	emit(ctx, line, len > strlen("refused this interval:"));
}

void view_segments(const struct ipc_state *st, const struct view_opts *o,
		   line_fn emit, void *ctx)
{
	size_t *order = malloc((st->nsegs ? st->nsegs : 1) * sizeof(*order));
	char line[512], size[UNITS_BUF], status[32], age[24], att[24], det[24];
	char comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	size_t n, i;

	if (!order)
		return;
	snprintf(line, sizeof(line),
		 "%-10s %-10s %-6s %-7s %-16s %10s %7s %6s %-20s %5s %5s %5s "
		 "%s",
		 "ID", "KEY", "OWNER", "CPID", "COMMAND", "SIZE", "%SHMMAX",
		 "NATTCH", "STATUS", "AGE", "ATT", "DET", "CGROUP");
	emit(ctx, line, true);
	n = view_seg_order(st, o, order);
	for (i = 0; i < n; i++) {
		const struct seg *s = &st->segs[order[i]];
		double share = limit_fraction(s->row.size, st->limits.shmmax);
		const struct cgroup_name *cg = state_cgroup(st, s->cgroup_id);

		snprintf(line, sizeof(line),
			 "%-10d 0x%08x %-6u %-7d %-16s %10s %6.2f%% %6llu %-20s "
			 "%5s %5s %5s %.120s",
			 s->row.id, (unsigned int)s->row.key, s->row.uid,
			 s->row.cpid,
			 s->creator_comm[0] ?
				 printable(comm, sizeof(comm), s->creator_comm) :
				 "?",
			 fmt_bytes(size, sizeof(size), s->row.size),
			 share * 100, (unsigned long long)s->row.nattch,
			 seg_status(s, status, sizeof(status)),
			 fmt_age(age, sizeof(age), o->now_s - s->row.ctime,
				 false),
			 fmt_age(att, sizeof(att), o->now_s - s->row.atime,
				 !s->row.atime),
			 fmt_age(det, sizeof(det), o->now_s - s->row.dtime,
				 !s->row.dtime),
			 !cg ? "-" : cg->label[0] ? cg->label : cg->path);
		emit(ctx, line, seg_orphaned(s));
	}
	free(order);
}

static const struct sem_waiter *next_waiter(const struct ipc_state *st,
					    int id, size_t *from)
{
	for (; *from < st->nwaiters; (*from)++)
		if (st->waiters[*from].id == id)
			return &st->waiters[(*from)++];
	return NULL;
}

/*
 * The last task to operate on the semaphore a waiter sleeps on
 * (GETPID, sempid): the likely holder. Its command when it lives.
 */
static int last_operator_pid(const struct sem_row *r,
			     const struct sem_waiter *w)
{
	if (!r->values_known || w->sem_num >= r->nsems)
		return 0;
	return r->pid[w->sem_num];
}

static void last_operator(const struct sem_row *r, const struct sem_waiter *w,
			  char *buf, size_t len)
{
	char comm[IPCW_COMM_LEN], shown[PRINTABLE_LEN(IPCW_COMM_LEN)];
	int pid = last_operator_pid(r, w);

	if (pid <= 0) {
		snprintf(buf, len, "no last operator known");
		return;
	}
	process_comm(pid, comm, sizeof(comm));
	if (comm[0])
		snprintf(buf, len, "last operator pid %d (%s)", pid,
			 printable(shown, sizeof(shown), comm));
	else
		snprintf(buf, len, "last operator pid %d (gone)", pid);
}

void view_semaphores(const struct ipc_state *st, const struct view_opts *o,
		     line_fn emit, void *ctx)
{
	char line[512], comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	size_t i, from;
	int n, known, asleep;

	snprintf(line, sizeof(line), "%-10s %-10s %-6s %5s   %-5s %6s %5s %5s %7s",
		 "SEMID", "KEY", "OWNER", "NSEMS", "SEM", "VALUE", "NCNT",
		 "ZCNT", "LASTPID");
	emit(ctx, line, true);
	for (i = 0; i < st->nsets; i++) {
		const struct sem_row *r = &st->sets[i].row;
		const struct cgroup_name *cg;
		const struct sem_waiter *w;

		if (o->filter_owner && r->uid != o->owner)
			continue;
		cg = state_cgroup(st, st->sets[i].cgroup_id);
		snprintf(line, sizeof(line), "%-10d 0x%08x %-6u %5d%s%s%.120s",
			 r->id, (unsigned int)r->key, r->uid, r->nsems,
			 r->values_known ? "" : "   (values not readable)",
			 cg ? "   cgroup " : "",
			 !cg ? "" : cg->label[0] ? cg->label : cg->path);
		emit(ctx, line, false);
		for (n = 0; r->values_known && n < r->nsems; n++) {
			snprintf(line, sizeof(line),
				 "%-10s %-10s %-6s %5s   #%-4d %6d %5d %5d %7d",
				 "", "", "", "", n, r->val[n], r->ncnt[n],
				 r->zcnt[n], r->pid[n]);
			emit(ctx, line, r->ncnt[n] + r->zcnt[n] > 0);
		}
		from = 0;
		known = 0;
		while ((w = next_waiter(st, r->id, &from))) {
			char holder[96];

			known++;
			last_operator(r, w, holder, sizeof(holder));
			snprintf(line, sizeof(line),
				 "%-10s pid %u (%s) waits on #%u op %d (%s), "
				 "operation %u of %u%s, for %.1fs; %s",
				 "", w->pid, printable(comm, sizeof(comm), w->comm),
				 w->sem_num, w->sem_op,
				 w->zcnt ? "zcnt" : "ncnt", w->index + 1,
				 w->nsops, w->timeout ? " with timeout" : "",
				 (o->now_ns - w->since_ns) / 1e9, holder);
			emit(ctx, line, false);
		}
		/* sleepers whose sem_block came before ipcwatch did */
		for (n = 0, asleep = 0; r->values_known && n < r->nsems; n++)
			asleep += r->ncnt[n] + r->zcnt[n];
		if (asleep > known) {
			size_t len = (size_t)snprintf(
				line, sizeof(line),
				"%-10s %d more task%s asleep since before "
				"ipcwatch started", "", asleep - known,
				asleep - known > 1 ? "s" : "");

			/* their operations are unknown; who holds is not */
			for (n = 0; n < r->nsems && len < sizeof(line); n++) {
				struct sem_waiter on = { .sem_num = n };
				char holder[96];

				if (!r->ncnt[n] && !r->zcnt[n])
					continue;
				last_operator(r, &on, holder, sizeof(holder));
				len += (size_t)snprintf(line + len,
							sizeof(line) - len,
							"; on #%d %s", n,
							holder);
			}
			emit(ctx, line, false);
		}
	}
}

void view_messages(const struct ipc_state *st, const struct view_opts *o,
		   line_fn emit, void *ctx)
{
	char line[512], bytes[UNITS_BUF];
	size_t i;

	snprintf(line, sizeof(line), "%-10s %-10s %-6s %10s %8s %7s %7s",
		 "MSQID", "KEY", "OWNER", "BYTES", "MESSAGES", "LSPID",
		 "LRPID");
	emit(ctx, line, true);
	for (i = 0; i < st->nmsgs; i++) {
		const struct msg_row *m = &st->msgs[i];

		if (o->filter_owner && m->uid != o->owner)
			continue;
		snprintf(line, sizeof(line),
			 "%-10d 0x%08x %-6u %10s %8llu %7d %7d", m->id,
			 (unsigned int)m->key, m->uid,
			 fmt_bytes(bytes, sizeof(bytes), m->cbytes),
			 (unsigned long long)m->qnum, m->lspid, m->lrpid);
		emit(ctx, line, false);
	}
}

void view_recent(const struct ipc_state *st, const struct view_opts *o,
		 line_fn emit, void *ctx)
{
	struct format_opts fo = { .timestamps = true,
				  .mono_to_real_ns = o->mono_to_real_ns,
				  .page_size = st->limits.page_size };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	emit(ctx, "RECENT REFUSALS AND DESTRUCTIONS", true);
	for (i = st->nrecent; i-- > 0;) {
		f = open_memstream(&buf, &len);
		if (!f)
			return;
		event_print_text(f, &st->recent[i], &fo);
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		emit(ctx, buf, st->recent[i].type == IPCW_SHM_CREATE);
		free(buf);
		buf = NULL;
	}
}

static void json_seg(struct json_writer *jw, const struct seg *s,
		     const struct ipc_state *st)
{
	const struct cgroup_name *cg = state_cgroup(st, s->cgroup_id);

	jw_start_object(jw);
	jw_kv_int(jw, "id", s->row.id);
	jw_kv_int(jw, "key", s->row.key);
	jw_kv_uint(jw, "size", s->row.size);
	jw_kv_double(jw, "shmmax_share",
		     limit_fraction(s->row.size, st->limits.shmmax));
	jw_kv_uint(jw, "mode", s->row.mode & 0777);
	jw_kv_uint(jw, "owner_uid", s->row.uid);
	jw_kv_uint(jw, "owner_gid", s->row.gid);
	jw_kv_uint(jw, "cuid", s->row.cuid);
	jw_kv_uint(jw, "cgid", s->row.cgid);
	jw_kv_int(jw, "cpid", s->row.cpid);
	jw_kv_int(jw, "lpid", s->row.lpid);
	jw_kv_string(jw, "creator_comm", s->creator_comm);
	jw_kv_bool(jw, "creator_alive", s->creator_alive);
	jw_kv_uint(jw, "nattch", s->row.nattch);
	jw_kv_bool(jw, "dest", seg_dest(s));
	jw_kv_bool(jw, "locked", seg_locked(s));
	jw_kv_bool(jw, "orphaned", seg_orphaned(s));
	jw_kv_int(jw, "ctime", s->row.ctime);
	jw_kv_int(jw, "atime", s->row.atime);
	jw_kv_int(jw, "dtime", s->row.dtime);
	jw_kv_uint(jw, "rss", s->row.rss);
	jw_kv_uint(jw, "swap", s->row.swap);
	jw_kv_uint(jw, "cgroup_id", s->cgroup_id);
	jw_kv_string(jw, "cgroup", cg ? cg->path : "");
	jw_kv_string(jw, "owner", cg ? cg->label : "");
	jw_end_object(jw);
}

static void json_set(struct json_writer *jw, const struct ipc_state *st,
		     const struct semset *set, const struct view_opts *o)
{
	const struct sem_row *r = &set->row;
	const struct cgroup_name *cg = state_cgroup(st, set->cgroup_id);
	const struct sem_waiter *w;
	char comm[IPCW_COMM_LEN];
	size_t from = 0;
	int n, pid;

	jw_start_object(jw);
	jw_kv_int(jw, "id", r->id);
	jw_kv_int(jw, "key", r->key);
	jw_kv_uint(jw, "mode", r->mode & 0777);
	jw_kv_uint(jw, "owner_uid", r->uid);
	jw_kv_uint(jw, "owner_gid", r->gid);
	jw_kv_int(jw, "nsems", r->nsems);
	jw_kv_uint(jw, "cgroup_id", set->cgroup_id);
	jw_kv_string(jw, "cgroup", cg ? cg->path : "");
	jw_kv_string(jw, "owner", cg ? cg->label : "");
	jw_kv_bool(jw, "values_known", r->values_known);
	jw_name(jw, "sems");
	jw_start_array(jw);
	for (n = 0; r->values_known && n < r->nsems; n++) {
		jw_start_object(jw);
		jw_kv_int(jw, "sem_num", n);
		jw_kv_int(jw, "value", r->val[n]);
		jw_kv_int(jw, "ncnt", r->ncnt[n]);
		jw_kv_int(jw, "zcnt", r->zcnt[n]);
		jw_kv_int(jw, "pid", r->pid[n]);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "waiters");
	jw_start_array(jw);
	while ((w = next_waiter(st, r->id, &from))) {
		jw_start_object(jw);
		jw_kv_uint(jw, "pid", w->pid);
		jw_kv_uint(jw, "tid", w->tid);
		jw_kv_string(jw, "comm", w->comm);
		jw_kv_uint(jw, "sem_num", w->sem_num);
		jw_kv_int(jw, "sem_op", w->sem_op);
		jw_kv_uint(jw, "index", w->index);
		jw_kv_uint(jw, "nsops", w->nsops);
		jw_kv_string(jw, "counts_as", w->zcnt ? "zcnt" : "ncnt");
		jw_kv_bool(jw, "timeout", w->timeout);
		jw_kv_uint(jw, "waiting_ns", o->now_ns - w->since_ns);
		pid = last_operator_pid(r, w);
		comm[0] = '\0';
		if (pid > 0)
			process_comm(pid, comm, sizeof(comm));
		jw_kv_int(jw, "last_operator_pid", pid);
		jw_kv_string(jw, "last_operator_comm", comm);
		jw_kv_bool(jw, "last_operator_alive", comm[0] != '\0');
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

void view_json(struct json_writer *jw, const struct ipc_state *st,
	       const struct view_opts *o)
{
	const struct ipc_limits *l = &st->limits;
	struct format_opts fo = { .mono_to_real_ns = o->mono_to_real_ns,
				  .page_size = l->page_size };
	size_t *order = malloc((st->nsegs ? st->nsegs : 1) * sizeof(*order));
	uint64_t orphans, orphan_bytes;
	size_t i, n;

	if (!order)
		return;
	state_orphans(st, &orphans, &orphan_bytes);
	jw_start_object(jw);
	jw_kv_string(jw, "type", "top");
	jw_kv_int(jw, "time_ns", (int64_t)o->now_ns + o->mono_to_real_ns);
	if (st->identified)
		ipcns_identity_json(jw, &st->ns, &st->id);
	else
		jw_kv_uint(jw, "ipcns", st->ipcns);
	jw_kv_string(jw, "mode", o->mode);
	jw_kv_uint(jw, "shmmax", l->shmmax);
	jw_kv_uint(jw, "shmall", l->shmall);
	jw_kv_u128(jw, "shmall_bytes", shmall_bytes(l));
	jw_kv_uint(jw, "shmmni", l->shmmni);
	jw_kv_uint(jw, "semmni", l->semmni);
	jw_kv_uint(jw, "semmns", l->semmns);
	jw_kv_uint(jw, "page_size", l->page_size);
	jw_kv_uint(jw, "segments", st->nsegs);
	jw_kv_uint(jw, "shm_tot", st->usage.shm_tot);
	jw_kv_uint(jw, "largest_segment", state_largest_seg(st));
	jw_kv_uint(jw, "sem_sets", st->nsets);
	jw_kv_uint(jw, "semaphores", st->usage.sems);
	jw_kv_uint(jw, "msgmni", l->msgmni);
	jw_kv_uint(jw, "msg_queues", st->nmsgs);
	jw_kv_uint(jw, "orphaned_segments", orphans);
	jw_kv_uint(jw, "orphaned_bytes", orphan_bytes);
	jw_kv_uint(jw, "lost", st->lost);
	jw_kv_uint(jw, "events", st->events);
	jw_kv_uint(jw, "resyncs", st->resyncs);
	jw_kv_uint(jw, "corrections", st->corrections);
	jw_name(jw, "refused");
	jw_start_object(jw);
	for (i = 1; i < IPCW_CREATE_REASON_MAX; i++)
		jw_kv_uint(jw, shm_reason_name(i), st->refused[i]);
	jw_end_object(jw);
	jw_name(jw, "shm");
	jw_start_array(jw);
	n = view_seg_order(st, o, order);
	for (i = 0; i < n; i++)
		json_seg(jw, &st->segs[order[i]], st);
	jw_end_array(jw);
	jw_name(jw, "sem");
	jw_start_array(jw);
	for (i = 0; i < st->nsets; i++)
		if (!o->filter_owner || st->sets[i].row.uid == o->owner)
			json_set(jw, st, &st->sets[i], o);
	jw_end_array(jw);
	jw_name(jw, "msg");
	jw_start_array(jw);
	for (i = 0; i < st->nmsgs; i++) {
		const struct msg_row *m = &st->msgs[i];

		if (o->filter_owner && m->uid != o->owner)
			continue;
		jw_start_object(jw);
		jw_kv_int(jw, "id", m->id);
		jw_kv_int(jw, "key", m->key);
		jw_kv_uint(jw, "mode", m->mode & 0777);
		jw_kv_uint(jw, "owner_uid", m->uid);
		jw_kv_uint(jw, "owner_gid", m->gid);
		jw_kv_uint(jw, "bytes", m->cbytes);
		jw_kv_uint(jw, "messages", m->qnum);
		jw_kv_int(jw, "lspid", m->lspid);
		jw_kv_int(jw, "lrpid", m->lrpid);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "recent");
	jw_start_array(jw);
	for (i = st->nrecent; i-- > 0;)
		event_print_json(jw, &st->recent[i], &fo);
	jw_end_array(jw);
	jw_end_object(jw);
	free(order);
}
