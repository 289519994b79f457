// SPDX-License-Identifier: GPL-2.0
#include "event_format.h"

#include <errno.h>
#include <string.h>
#include <sys/shm.h>
#include <time.h>

#include "event.h"
#include "printable.h"
#include "units.h"

/* from linux/shm.h, which clashes with glibc's sys/shm.h */
#ifndef SHM_HUGE_SHIFT
#define SHM_HUGE_SHIFT 26
#define SHM_HUGE_MASK 0x3f
#endif

const char *shm_reason_text(const struct ipcw_shm_create *c,
			    uint64_t page_size, char *buf, size_t len)
{
	char a[UNITS_BUF], b[UNITS_BUF];
	unsigned __int128 over;

	switch (c->reason) {
	case IPCW_CREATE_OK:
		snprintf(buf, len, "%s", "");
		break;
	case IPCW_CREATE_TOO_SMALL:
		snprintf(buf, len, "size %llu < SHMMIN 1 byte",
			 (unsigned long long)c->size);
		break;
	case IPCW_CREATE_OVER_SHMMAX:
		snprintf(buf, len, "size %s > kernel.shmmax %s",
			 fmt_bytes(a, sizeof(a), c->size),
			 fmt_bytes(b, sizeof(b), c->shmmax));
		break;
	case IPCW_CREATE_PAGE_OVERFLOW:
		snprintf(buf, len,
			 "page round-up overflow: size %llu does not round up "
			 "to whole pages", (unsigned long long)c->size);
		break;
	case IPCW_CREATE_TOTAL_WRAP:
		snprintf(buf, len,
			 "shm_tot would wrap: %llu pages in use + %llu pages "
			 "exceed 2^64", (unsigned long long)c->shm_tot,
			 (unsigned long long)c->pages);
		break;
	case IPCW_CREATE_OVER_SHMALL:
		over = (unsigned __int128)c->shm_tot + c->pages - c->shmall;
		if (c->shmall == 0)
			snprintf(buf, len,
				 "kernel.shmall is 0: shm allocation disabled");
		else
			snprintf(buf, len,
				 "over kernel.shmall by %s (%llu pages in use + "
				 "%llu > %llu)",
				 fmt_bytes(a, sizeof(a), over * page_size),
				 (unsigned long long)c->shm_tot,
				 (unsigned long long)c->pages,
				 (unsigned long long)c->shmall);
		break;
	case IPCW_CREATE_NO_IDS:
		snprintf(buf, len, "kernel.shmmni reached: %d segments exist",
			 c->shmmni);
		break;
	case IPCW_CREATE_EXISTING_SMALLER:
		snprintf(buf, len,
			 "existing segment key 0x%x is %s, smaller than the "
			 "%s requested", (unsigned int)c->key,
			 fmt_bytes(a, sizeof(a), c->existing_size),
			 fmt_bytes(b, sizeof(b), c->size));
		break;
	case IPCW_CREATE_LSM_DENIED:
		snprintf(buf, len, "refused by a security module");
		break;
	case IPCW_CREATE_NOMEM:
		snprintf(buf, len, "out of memory for the segment");
		break;
	case IPCW_CREATE_FILE_SETUP:
		snprintf(buf, len,
			 "shmem file setup failed (memory accounting or "
			 "hugetlbfs)");
		break;
	case IPCW_CREATE_BAD_HUGEPAGE:
		snprintf(buf, len, "no huge page size 2^%d",
			 (c->shmflg >> SHM_HUGE_SHIFT) & SHM_HUGE_MASK);
		break;
	case IPCW_CREATE_UNEXPLAINED:
		snprintf(buf, len,
			 "refused past the limit checks; this kernel lacks "
			 "the hook that tells why (ipcwatch probe)");
		break;
	default:
		snprintf(buf, len, "unknown reason %u", c->reason);
	}
	return buf;
}

const char *sem_reason_text(const struct ipcw_sem_create *c, char *buf,
			    size_t len)
{
	char ask[64];

	if (c->reason == IPCW_SEM_CREATE_OK) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(ask, sizeof(ask), "semget of %d semaphores refused",
		 c->nsems);
	switch (c->reason) {
	case IPCW_SEM_CREATE_BAD_NSEMS:
		snprintf(buf, len, "%s: a negative count", ask);
		break;
	case IPCW_SEM_CREATE_OVER_SEMMSL:
		snprintf(buf, len, "%s: kernel.sem semmsl %d per set", ask,
			 c->semmsl);
		break;
	case IPCW_SEM_CREATE_NO_NSEMS:
		snprintf(buf, len, "%s: a new set needs at least one", ask);
		break;
	case IPCW_SEM_CREATE_OVER_SEMMNS:
		snprintf(buf, len, "%s: kernel.sem semmns %d: %d in use + %d "
			 "asked", ask, c->semmns, c->used_sems, c->nsems);
		break;
	case IPCW_SEM_CREATE_NO_IDS:
		/* semmni may have been lowered below the sets in use */
		snprintf(buf, len, "%s: kernel.sem semmni %d reached (at least "
			 "that many sets)", ask, c->semmni);
		break;
	case IPCW_SEM_CREATE_EXISTING_FEWER:
		snprintf(buf, len, "%s: existing set key 0x%x has only %d "
			 "(not a kernel.sem limit)", ask, (unsigned int)c->key,
			 c->existing_nsems);
		break;
	case IPCW_SEM_CREATE_LSM_DENIED:
		snprintf(buf, len, "%s by a security module", ask);
		break;
	case IPCW_SEM_CREATE_NOMEM:
		snprintf(buf, len, "%s: out of memory for the set", ask);
		break;
	case IPCW_SEM_CREATE_UNEXPLAINED:
		snprintf(buf, len, "%s past the limit checks; this kernel lacks "
			 "the hook that tells why (ipcwatch probe)", ask);
		break;
	default:
		snprintf(buf, len, "%s: unknown reason %u", ask, c->reason);
	}
	return buf;
}

const char *shmat_reason_text(const struct ipcw_shmat *s, char *buf,
			      size_t len)
{
	char a[UNITS_BUF];

	switch (s->reason) {
	case IPCW_SHMAT_OK:
		snprintf(buf, len, "%s", "");
		break;
	case IPCW_SHMAT_BAD_ARGS:
		snprintf(buf, len,
			 "bad arguments: negative id, address not aligned "
			 "without SHM_RND, or SHM_REMAP without an address");
		break;
	case IPCW_SHMAT_NO_SEGMENT:
		snprintf(buf, len, "no segment with this id");
		break;
	case IPCW_SHMAT_NO_ACCESS:
		snprintf(buf, len, "permission denied by the segment's mode");
		break;
	case IPCW_SHMAT_LSM_DENIED:
		snprintf(buf, len, "refused by a security module");
		break;
	case IPCW_SHMAT_REMOVED:
		snprintf(buf, len, "the segment is being destroyed");
		break;
	case IPCW_SHMAT_NOMEM:
		snprintf(buf, len, "no memory or file for the attach");
		break;
	case IPCW_SHMAT_INTERRUPTED:
		snprintf(buf, len, "fatal signal while waiting to map");
		break;
	case IPCW_SHMAT_ADDR_WRAP:
		snprintf(buf, len, "address + size %s wraps around",
			 fmt_bytes(a, sizeof(a), s->size));
		break;
	case IPCW_SHMAT_ADDR_OVERLAP:
		snprintf(buf, len,
			 "the %s range overlaps a mapping (no SHM_REMAP)",
			 fmt_bytes(a, sizeof(a), s->size));
		break;
	case IPCW_SHMAT_MMAP_FAILED:
		snprintf(buf, len, "the mmap of the segment failed");
		break;
	case IPCW_SHMAT_UNEXPLAINED:
		snprintf(buf, len,
			 "this mode tells only an address wrap; the ipc "
			 "tracepoints tell every reason");
		break;
	default:
		snprintf(buf, len, "unknown reason %u", s->reason);
	}
	return buf;
}

const char *sem_wake_text(const struct ipcw_sem_wake *w, char *buf,
			  size_t len)
{
	switch (w->err) {
	case 0:
		snprintf(buf, len, "done");
		break;
	case EIDRM:
		snprintf(buf, len, "EIDRM: the set was removed");
		break;
	case EINTR:
		snprintf(buf, len, "EINTR: a signal");
		break;
	case EAGAIN:
		if (!w->timed_out_known)
			snprintf(buf, len, "EAGAIN: timeout, or an IPC_NOWAIT "
				 "operation at the re-check");
		else if (w->timed_out)
			snprintf(buf, len, "EAGAIN: timed out");
		else
			snprintf(buf, len, "EAGAIN: an IPC_NOWAIT operation "
				 "could not proceed at the re-check");
		break;
	case ERANGE:
		snprintf(buf, len, "ERANGE: an operation would exceed SEMVMX "
			 "at the re-check");
		break;
	default: {
		const char *name = errno_name(w->err);

		if (name)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "errno %d", w->err);
	}
	}
	return buf;
}

/*
 * The errno of a failed shmctl(): the kernel returns -4095..-1 (its
 * MAX_ERRNO) for one. 0 for any other value, which a record no kernel
 * would send may hold (-2^63 cannot even be negated).
 */
static int shmctl_errno(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? (int)-ret : 0;
}

static const char *err_text(char *buf, size_t len, int err)
{
	const char *name = errno_name(err);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "errno %d", err);
	return buf;
}

void event_print_header(FILE *out, const struct format_opts *opts)
{
	if (opts->timestamps)
		fprintf(out, "%-12s ", "TIME");
	fprintf(out, "%-7s %-16s %-11s %s\n", "PID", "COMM", "EVENT",
		"DETAILS");
}

/*
 * The wall clock time of an event. A record no kernel would send (a
 * time past 2^63 ns) saturates rather than overflow.
 */
static int64_t wall_ns(const struct ipcw_event *e,
		       const struct format_opts *opts)
{
	int64_t mono = e->ts_ns > INT64_MAX ? INT64_MAX : (int64_t)e->ts_ns;
	int64_t real;

	/* mono >= 0: only a positive offset can overflow */
	if (__builtin_add_overflow(mono, opts->mono_to_real_ns, &real))
		return INT64_MAX;
	return real;
}

static void print_time(FILE *out, const struct ipcw_event *e,
		       const struct format_opts *opts)
{
	int64_t real = wall_ns(e, opts);
	time_t secs = real / 1000000000;
	struct tm tm;

	localtime_r(&secs, &tm);
	fprintf(out, "%02d:%02d:%02d.%03d ", tm.tm_hour, tm.tm_min,
		tm.tm_sec, (int)(real / 1000000 % 1000));
}

void event_print_text(FILE *out, const struct ipcw_event *e,
		      const struct format_opts *opts)
{
	char a[UNITS_BUF], why[256], err[24], comm[PRINTABLE_LEN(IPCW_COMM_LEN)];
	const char *cmd;

	if (opts->timestamps)
		print_time(out, e, opts);
	fprintf(out, "%-7u %-16s %-11s ", e->pid,
		printable(comm, sizeof(comm), e->comm),
		event_type_name(e->type));
	switch (e->type) {
	case IPCW_SHM_CREATE: {
		const struct ipcw_shm_create *c = &e->shm_create;

		if (!c->err) {
			fprintf(out, "id %d key 0x%08x size %s (%llu pages)\n",
				c->id, (unsigned int)c->key,
				fmt_bytes(a, sizeof(a), c->size),
				(unsigned long long)c->pages);
			break;
		}
		fprintf(out, "REFUSED %s key 0x%08x size %s: %s\n",
			err_text(err, sizeof(err), c->err),
			(unsigned int)c->key, fmt_bytes(a, sizeof(a), c->size),
			shm_reason_text(c, opts->page_size, why, sizeof(why)));
		break;
	}
	case IPCW_SHMAT: {
		const struct ipcw_shmat *s = &e->shmat;

		if (!s->err && s->args_known)
			fprintf(out, "id %d at 0x%llx size %s%s\n", s->id,
				(unsigned long long)s->raddr,
				fmt_bytes(a, sizeof(a), s->size),
				s->shmflg & SHM_RDONLY ? " read-only" : "");
		else if (!s->err)
			fprintf(out, "id %d size %s\n", s->id,
				fmt_bytes(a, sizeof(a), s->size));
		else if (s->args_known)
			fprintf(out, "REFUSED %s id %d addr 0x%llx: %s\n",
				err_text(err, sizeof(err), s->err), s->id,
				(unsigned long long)s->addr,
				shmat_reason_text(s, why, sizeof(why)));
		else
			fprintf(out, "REFUSED %s id %d: %s\n",
				err_text(err, sizeof(err), s->err), s->id,
				shmat_reason_text(s, why, sizeof(why)));
		break;
	}
	case IPCW_SHM_ATTACH:
	case IPCW_SHM_DETACH:
		fprintf(out, "id %d nattch %llu\n", e->nattch.id,
			(unsigned long long)e->nattch.nattch);
		break;
	case IPCW_SHM_DESTROY: {
		const struct ipcw_shm_destroy *d = &e->shm_destroy;

		fprintf(out, "id %d key 0x%08x size %s owner %u creator pid "
			"%d: %s\n", d->id, (unsigned int)d->key,
			fmt_bytes(a, sizeof(a), d->size), d->owner_uid, d->cpid,
			destroy_cause_name(d->cause));
		break;
	}
	case IPCW_SHMCTL:
		cmd = shmctl_cmd_name(e->shmctl.cmd);
		if (cmd)
			fprintf(out, "id %d %s", e->shmctl.id, cmd);
		else
			fprintf(out, "id %d cmd %d", e->shmctl.id,
				e->shmctl.cmd);
		if (shmctl_errno(e->shmctl.ret))
			fprintf(out, " -> %s\n",
				err_text(err, sizeof(err),
					 shmctl_errno(e->shmctl.ret)));
		else
			fprintf(out, " -> %lld\n", (long long)e->shmctl.ret);
		break;
	case IPCW_SEM_BLOCK: {
		const struct ipcw_sem_block *b = &e->sem_block;

		fprintf(out, "id %d sem %u op %d (counts in %s), operation "
			"%u of %u%s\n", b->id, b->sem_num, b->sem_op,
			b->zcnt ? "zcnt" : "ncnt", b->index + 1, b->nsops,
			b->timeout ? ", with timeout" : "");
		break;
	}
	case IPCW_SEM_WAKE: {
		const struct ipcw_sem_wake *w = &e->sem_wake;

		fprintf(out, "id %d sem %u %s after %.3f s\n", w->id,
			w->sem_num, sem_wake_text(w, why, sizeof(why)),
			w->slept_ns / 1e9);
		break;
	}
	case IPCW_SHM_ORPHAN: {
		const struct ipcw_shm_orphan *o = &e->shm_orphan;

		fprintf(out, "id %d key 0x%08x size %s owner %u outlives its "
			"creator, %llu attached: freed only by IPC_RMID, "
			"kernel.shm_rmid_forced or its namespace's end\n",
			o->id, (unsigned int)o->key,
			fmt_bytes(a, sizeof(a), o->size), o->owner_uid,
			(unsigned long long)o->nattch);
		break;
	}
	case IPCW_SEM_CREATE: {
		const struct ipcw_sem_create *c = &e->sem_create;

		if (!c->err)
			fprintf(out, "id %d key 0x%08x %d semaphores (%d in use "
				"before)\n", c->id, (unsigned int)c->key,
				c->nsems, c->used_sems);
		else
			fprintf(out, "REFUSED %s key 0x%08x: %s\n",
				err_text(err, sizeof(err), c->err),
				(unsigned int)c->key,
				sem_reason_text(c, why, sizeof(why)));
		break;
	}
	case IPCW_SEM_DESTROY: {
		const struct ipcw_sem_destroy *d = &e->sem_destroy;

		fprintf(out, "id %d key 0x%08x %d semaphores owner %u creator "
			"uid %u: %s", d->id, (unsigned int)d->key, d->nsems,
			d->owner_uid, d->cuid,
			sem_destroy_cause_name(d->cause));
		if (d->counts_known)
			fprintf(out, ", %d waiting woken with EIDRM, %d "
				"SEM_UNDO records dropped\n", d->waiters,
				d->undos);
		else
			fputs("\n", out);
		break;
	}
	case IPCW_SEM_UNDO: {
		const struct ipcw_sem_undo *u = &e->sem_undo;

		if (u->gone && u->id == -1)
			fputs("SEM_UNDO not applied: the set was removed "
			      "first\n", out);
		else if (u->gone)
			/* the record's id, which may name a new set by now */
			fprintf(out, "id %d SEM_UNDO not applied: the set the "
				"record was for was removed (the id may since "
				"be reused)\n", u->id);
		else if (u->clamped)
			fprintf(out, "id %d SEM_UNDO applied to %d of %d "
				"semaphores, %d capped at 0 or SEMVMX\n",
				u->id, u->adjusted, u->nsems, u->clamped);
		else
			fprintf(out, "id %d SEM_UNDO applied to %d of %d "
				"semaphores\n", u->id, u->adjusted, u->nsems);
		break;
	}
	default:
		fputs("\n", out);
	}
}

static void json_err(struct json_writer *jw, int err)
{
	const char *name = errno_name(err);

	jw_kv_int(jw, "err", err);
	if (name)
		jw_kv_string(jw, "errno", name);
	else
		jw_kv_string(jw, "errno", "");
}

void event_print_json(struct json_writer *jw, const struct ipcw_event *e,
		      const struct format_opts *opts)
{
	char why[256];
	const char *cmd;

	jw_start_object(jw);
	jw_kv_string(jw, "type", event_type_name(e->type));
	jw_kv_uint(jw, "ts_ns", e->ts_ns);
	jw_kv_int(jw, "time_ns", wall_ns(e, opts));
	jw_kv_uint(jw, "pid", e->pid);
	jw_kv_uint(jw, "tid", e->tid);
	jw_kv_string(jw, "comm", e->comm);
	jw_kv_uint(jw, "uid", e->uid);
	jw_kv_uint(jw, "gid", e->gid);
	jw_kv_uint(jw, "cgroup_id", e->cgroup_id);
	jw_kv_uint(jw, "ipcns", e->ipcns);
	switch (e->type) {
	case IPCW_SHM_CREATE: {
		const struct ipcw_shm_create *c = &e->shm_create;

		jw_kv_int(jw, "id", c->id);
		jw_kv_int(jw, "key", c->key);
		jw_kv_uint(jw, "size", c->size);
		jw_kv_uint(jw, "pages", c->pages);
		jw_kv_int(jw, "shmflg", c->shmflg);
		jw_kv_uint(jw, "shmmax", c->shmmax);
		jw_kv_uint(jw, "shmall", c->shmall);
		jw_kv_int(jw, "shmmni", c->shmmni);
		jw_kv_uint(jw, "shm_tot", c->shm_tot);
		jw_kv_uint(jw, "existing_size", c->existing_size);
		json_err(jw, c->err);
		jw_kv_string(jw, "reason", shm_reason_name(c->reason));
		jw_kv_string(jw, "reason_text",
			     shm_reason_text(c, opts->page_size, why,
					     sizeof(why)));
		break;
	}
	case IPCW_SHMAT:
		jw_kv_int(jw, "id", e->shmat.id);
		/* the kernel's event leaves these to the system call */
		if (e->shmat.args_known) {
			jw_kv_uint(jw, "addr", e->shmat.addr);
			jw_kv_int(jw, "shmflg", e->shmat.shmflg);
			jw_kv_uint(jw, "raddr", e->shmat.raddr);
		}
		jw_kv_uint(jw, "size", e->shmat.size);
		json_err(jw, e->shmat.err);
		jw_kv_string(jw, "reason", shmat_reason_name(e->shmat.reason));
		jw_kv_string(jw, "reason_text",
			     shmat_reason_text(&e->shmat, why, sizeof(why)));
		jw_kv_bool(jw, "addr_wrap",
			   e->shmat.reason == IPCW_SHMAT_ADDR_WRAP);
		break;
	case IPCW_SHM_ATTACH:
	case IPCW_SHM_DETACH:
		jw_kv_int(jw, "id", e->nattch.id);
		jw_kv_uint(jw, "nattch", e->nattch.nattch);
		break;
	case IPCW_SHM_DESTROY: {
		const struct ipcw_shm_destroy *d = &e->shm_destroy;

		jw_kv_int(jw, "id", d->id);
		jw_kv_int(jw, "key", d->key);
		jw_kv_uint(jw, "size", d->size);
		jw_kv_uint(jw, "pages", d->pages);
		jw_kv_uint(jw, "owner_uid", d->owner_uid);
		jw_kv_uint(jw, "cuid", d->cuid);
		jw_kv_uint(jw, "cgid", d->cgid);
		jw_kv_int(jw, "cpid", d->cpid);
		jw_kv_int(jw, "ctime", d->ctime);
		jw_kv_string(jw, "cause", destroy_cause_name(d->cause));
		break;
	}
	case IPCW_SHMCTL:
		cmd = shmctl_cmd_name(e->shmctl.cmd);
		jw_kv_int(jw, "id", e->shmctl.id);
		jw_kv_int(jw, "cmd", e->shmctl.cmd);
		jw_kv_string(jw, "cmd_name", cmd ? cmd : "");
		jw_kv_int(jw, "ret", e->shmctl.ret);
		json_err(jw, shmctl_errno(e->shmctl.ret));
		break;
	case IPCW_SEM_BLOCK:
		jw_kv_int(jw, "id", e->sem_block.id);
		jw_kv_uint(jw, "nsops", e->sem_block.nsops);
		jw_kv_uint(jw, "index", e->sem_block.index);
		jw_kv_uint(jw, "sem_num", e->sem_block.sem_num);
		jw_kv_int(jw, "sem_op", e->sem_block.sem_op);
		jw_kv_int(jw, "sem_flg", e->sem_block.sem_flg);
		jw_kv_string(jw, "counts_as",
			     e->sem_block.zcnt ? "zcnt" : "ncnt");
		jw_kv_bool(jw, "timeout", e->sem_block.timeout);
		break;
	case IPCW_SEM_WAKE:
		jw_kv_int(jw, "id", e->sem_wake.id);
		jw_kv_uint(jw, "sem_num", e->sem_wake.sem_num);
		jw_kv_int(jw, "sem_op", e->sem_wake.sem_op);
		jw_kv_uint(jw, "slept_ns", e->sem_wake.slept_ns);
		json_err(jw, e->sem_wake.err);
		if (e->sem_wake.timed_out_known)
			jw_kv_bool(jw, "timed_out", e->sem_wake.timed_out);
		jw_kv_string(jw, "result_text",
			     sem_wake_text(&e->sem_wake, why, sizeof(why)));
		break;
	case IPCW_SHM_ORPHAN: {
		const struct ipcw_shm_orphan *o = &e->shm_orphan;

		jw_kv_int(jw, "id", o->id);
		jw_kv_int(jw, "key", o->key);
		jw_kv_uint(jw, "size", o->size);
		jw_kv_uint(jw, "pages", o->pages);
		jw_kv_uint(jw, "owner_uid", o->owner_uid);
		jw_kv_uint(jw, "nattch", o->nattch);
		break;
	}
	case IPCW_SEM_CREATE: {
		const struct ipcw_sem_create *c = &e->sem_create;

		jw_kv_int(jw, "id", c->id);
		jw_kv_int(jw, "key", c->key);
		jw_kv_int(jw, "nsems", c->nsems);
		jw_kv_int(jw, "semflg", c->semflg);
		jw_kv_int(jw, "semmsl", c->semmsl);
		jw_kv_int(jw, "semmns", c->semmns);
		jw_kv_int(jw, "semmni", c->semmni);
		jw_kv_int(jw, "used_sems", c->used_sems);
		jw_kv_int(jw, "existing_nsems", c->existing_nsems);
		json_err(jw, c->err);
		jw_kv_string(jw, "reason", sem_reason_name(c->reason));
		jw_kv_string(jw, "reason_text",
			     sem_reason_text(c, why, sizeof(why)));
		break;
	}
	case IPCW_SEM_DESTROY: {
		const struct ipcw_sem_destroy *d = &e->sem_destroy;

		jw_kv_int(jw, "id", d->id);
		jw_kv_int(jw, "key", d->key);
		jw_kv_int(jw, "nsems", d->nsems);
		jw_kv_uint(jw, "owner_uid", d->owner_uid);
		jw_kv_uint(jw, "cuid", d->cuid);
		jw_kv_uint(jw, "cgid", d->cgid);
		jw_kv_int(jw, "ctime", d->ctime);
		/* fentry and kprobe modes cannot count them */
		if (d->counts_known) {
			jw_kv_int(jw, "waiters", d->waiters);
			jw_kv_int(jw, "undos", d->undos);
		}
		jw_kv_string(jw, "cause", sem_destroy_cause_name(d->cause));
		break;
	}
	case IPCW_SEM_UNDO:
		jw_kv_int(jw, "id", e->sem_undo.id);
		jw_kv_int(jw, "nsems", e->sem_undo.nsems);
		jw_kv_int(jw, "adjusted", e->sem_undo.adjusted);
		jw_kv_int(jw, "clamped", e->sem_undo.clamped);
		jw_kv_bool(jw, "gone", e->sem_undo.gone);
		break;
	}
	jw_end_object(jw);
}
