// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "sysvipc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sysvipc_proc_root = "/proc";

int parse_numbers(FILE *f, uint64_t *v, int n)
{
	int got = 0;

	while (got < n && fscanf(f, "%" SCNu64, &v[got]) == 1)
		got++;
	return got;
}

/* Read @n unsigned numbers from a /proc file. */
static int read_numbers(const char *rel, uint64_t *v, int n, char *err,
			size_t errlen)
{
	char path[256];
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "%s/%s", sysvipc_proc_root, rel);
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
		return -e;
	}
	got = parse_numbers(f, v, n);
	fclose(f);
	if (got != n) {
		snprintf(err, errlen, "%s: expected %d number%s", path, n,
			 n > 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

static uint64_t mem_total(void)
{
	char path[256], line[256];
	uint64_t kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meminfo", sysvipc_proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int read_ipc_limits(struct ipc_limits *l, char *err, size_t errlen)
{
	uint64_t sem[4];
	int ret;

	memset(l, 0, sizeof(*l));
	if ((ret = read_numbers("sys/kernel/shmmax", &l->shmmax, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shmall", &l->shmall, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shmmni", &l->shmmni, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/shm_rmid_forced",
				&l->shm_rmid_forced, 1, err, errlen)) ||
	    (ret = read_numbers("sys/kernel/sem", sem, 4, err, errlen)) ||
	    (ret = read_numbers("sys/kernel/msgmax", &l->msgmax, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/msgmnb", &l->msgmnb, 1, err,
				errlen)) ||
	    (ret = read_numbers("sys/kernel/msgmni", &l->msgmni, 1, err,
				errlen)))
		return ret;
	l->semmsl = sem[0];
	l->semmns = sem[1];
	l->semopm = sem[2];
	l->semmni = sem[3];
	l->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	l->mem_total = mem_total();
	return 0;
}

int read_ipc_usage(struct ipc_usage *u, char *err, size_t errlen)
{
	struct shm_info shm;
	struct seminfo sem;
	struct msginfo msg;

	memset(u, 0, sizeof(*u));
	if (shmctl(0, SHM_INFO, (struct shmid_ds *)&shm) < 0) {
		int e = errno;

		snprintf(err, errlen, "shmctl(SHM_INFO): %s", strerror(e));
		return -e;
	}
	if (semctl(0, 0, SEM_INFO, &sem) < 0) {
		int e = errno;

		snprintf(err, errlen, "semctl(SEM_INFO): %s", strerror(e));
		return -e;
	}
	if (msgctl(0, MSG_INFO, (struct msqid_ds *)&msg) < 0) {
		int e = errno;

		snprintf(err, errlen, "msgctl(MSG_INFO): %s", strerror(e));
		return -e;
	}
	u->segments = shm.used_ids;
	u->shm_tot = shm.shm_tot;
	/* SEM_INFO: semusz holds the sets in use, semaem the semaphores */
	u->sem_sets = sem.semusz;
	u->sems = sem.semaem;
	/* MSG_INFO: msgpool holds the queues, msgmap the messages, msgtql
	 * their bytes */
	u->msg_queues = (unsigned int)msg.msgpool;
	u->msg_messages = (unsigned int)msg.msgmap;
	u->msg_bytes = (unsigned int)msg.msgtql;
	return 0;
}

/* A /proc/sysvipc table: 0, or -errno with the message in @err. */
static int open_table(const char *name, char *path, size_t len, FILE **f,
		      char *err, size_t errlen)
{
	int e;

	snprintf(path, len, "%s/sysvipc/%s", sysvipc_proc_root, name);
	*f = fopen(path, "r");
	if (*f)
		return 0;
	e = errno;
	snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
	return -e;
}

/* The header line every table starts with. */
static int skip_header(FILE *f, const char *name, char *err, size_t errlen)
{
	char header[512];

	if (fgets(header, sizeof(header), f))
		return 0;
	snprintf(err, errlen, "%s: empty", name);
	return -EINVAL;
}

/* Append to a growing array. */
static void *grow(void *array, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return array;
	*cap = *cap ? *cap * 2 : 256;
	return realloc(array, *cap * size);
}

int parse_shm_table(FILE *f, const char *name, struct shm_row **rows,
		    size_t *n, char *err, size_t errlen)
{
	struct shm_row r, *out = NULL, *bigger;
	size_t cap = 0, count = 0;
	char line[512];
	int ret = skip_header(f, name, err, errlen);

	if (ret)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		memset(&r, 0, sizeof(r));	/* padding too: rows are sent whole */
		if (sscanf(line,
			   "%d %d %o %" SCNu64 " %d %d %" SCNu64 " %" SCNu32
			   " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNd64
			   " %" SCNd64 " %" SCNd64 " %" SCNu64 " %" SCNu64,
			   &r.key, &r.id, &r.mode, &r.size, &r.cpid, &r.lpid,
			   &r.nattch, &r.uid, &r.gid, &r.cuid, &r.cgid,
			   &r.atime, &r.dtime, &r.ctime, &r.rss,
			   &r.swap) != 16)
			continue;
		bigger = grow(out, &cap, count, sizeof(*out));
		if (!bigger) {
			free(out);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		out = bigger;
		out[count++] = r;
	}
	*rows = out;
	*n = count;
	return 0;
}

int read_shm_rows(struct shm_row **rows, size_t *n, char *err, size_t errlen)
{
	char path[256];
	FILE *f;
	int ret = open_table("shm", path, sizeof(path), &f, err, errlen);

	if (ret)
		return ret;
	ret = parse_shm_table(f, path, rows, n, err, errlen);
	fclose(f);
	return ret;
}

int read_sem_values(struct sem_row *row)
{
	unsigned short *vals;
	int i, n = row->nsems;

	row->values_known = false;
	if (n <= 0)
		return 0;
	vals = calloc(n, sizeof(*vals));
	row->val = calloc(n, sizeof(int));
	row->ncnt = calloc(n, sizeof(int));
	row->zcnt = calloc(n, sizeof(int));
	row->pid = calloc(n, sizeof(int));
	if (!vals || !row->val || !row->ncnt || !row->zcnt || !row->pid) {
		free(vals);
		return -ENOMEM;
	}
	/* sets we may not read: shown without values, not an error */
	if (semctl(row->id, 0, GETALL, vals) < 0) {
		int e = errno;

		free(vals);
		return e == EACCES || e == EPERM ? 0 : -e;
	}
	for (i = 0; i < n; i++) {
		row->val[i] = vals[i];
		row->ncnt[i] = semctl(row->id, i, GETNCNT);
		row->zcnt[i] = semctl(row->id, i, GETZCNT);
		row->pid[i] = semctl(row->id, i, GETPID);
	}
	free(vals);
	row->values_known = true;
	return 0;
}

int parse_sem_table(FILE *f, const char *name, struct sem_row **rows,
		    size_t *n, char *err, size_t errlen)
{
	struct sem_row r, *out = NULL, *bigger;
	size_t cap = 0, count = 0;
	char line[512];
	int ret = skip_header(f, name, err, errlen);

	if (ret)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		memset(&r, 0, sizeof(r));
		if (sscanf(line,
			   "%d %d %o %d %" SCNu32 " %" SCNu32 " %" SCNu32
			   " %" SCNu32 " %" SCNd64 " %" SCNd64,
			   &r.key, &r.id, &r.mode, &r.nsems, &r.uid, &r.gid,
			   &r.cuid, &r.cgid, &r.otime, &r.ctime) != 10)
			continue;
		bigger = grow(out, &cap, count, sizeof(*out));
		if (!bigger) {
			free_sem_rows(out, count);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		out = bigger;
		out[count++] = r;
	}
	*rows = out;
	*n = count;
	return 0;
}

int read_sem_rows(struct sem_row **rows, size_t *n, char *err, size_t errlen)
{
	char path[256];
	size_t i;
	FILE *f;
	int ret = open_table("sem", path, sizeof(path), &f, err, errlen);

	if (ret)
		return ret;
	ret = parse_sem_table(f, path, rows, n, err, errlen);
	fclose(f);
	if (ret)
		return ret;
	/* a set removed since the table was read: keep the row */
	for (i = 0; i < *n; i++)
		read_sem_values(&(*rows)[i]);
	return 0;
}

int parse_msg_table(FILE *f, const char *name, struct msg_row **rows,
		    size_t *n, char *err, size_t errlen)
{
	struct msg_row r, *out = NULL, *bigger;
	size_t cap = 0, count = 0;
	char line[512];
	int ret = skip_header(f, name, err, errlen);

	if (ret)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		memset(&r, 0, sizeof(r));
		if (sscanf(line,
			   "%d %d %o %" SCNu64 " %" SCNu64 " %d %d %" SCNu32
			   " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNd64
			   " %" SCNd64 " %" SCNd64,
			   &r.key, &r.id, &r.mode, &r.cbytes, &r.qnum,
			   &r.lspid, &r.lrpid, &r.uid, &r.gid, &r.cuid,
			   &r.cgid, &r.stime, &r.rtime, &r.ctime) != 14)
			continue;
		bigger = grow(out, &cap, count, sizeof(*out));
		if (!bigger) {
			free(out);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		out = bigger;
		out[count++] = r;
	}
	*rows = out;
	*n = count;
	return 0;
}

int read_msg_rows(struct msg_row **rows, size_t *n, char *err, size_t errlen)
{
	char path[256];
	FILE *f;
	int ret = open_table("msg", path, sizeof(path), &f, err, errlen);

	if (ret)
		return ret;
	ret = parse_msg_table(f, path, rows, n, err, errlen);
	fclose(f);
	return ret;
}

void free_sem_rows(struct sem_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].val);
		free(rows[i].ncnt);
		free(rows[i].zcnt);
		free(rows[i].pid);
	}
	free(rows);
}

/* Boot time in seconds since the epoch, from /proc/stat. */
static int64_t boot_time(void)
{
	static int64_t btime;
	char path[256], line[256];
	FILE *f;

	if (btime)
		return btime;
	snprintf(path, sizeof(path), "%s/stat", sysvipc_proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %" SCNd64, &btime) == 1)
			break;
	fclose(f);
	return btime;
}

int parse_pid_stat(const char *line, unsigned long long *start_ticks)
{
	const char *p = strrchr(line, ')');
	int i;

	if (!p)
		return -ESRCH;
	/* ") S ...": a line cut short after the command has no state */
	if (p[1] != ' ' || !p[2])
		return -EINVAL;
	/* a zombie has exited: exit_shm() has run for it */
	if (p[2] == 'Z' || p[2] == 'X')
		return -ESRCH;
	/* field 22, starttime, counted from the state after ')' (field 3) */
	for (i = 3, p += 2; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", start_ticks) != 1)
		return -EINVAL;
	return 0;
}

/* Start time of @pid in seconds since the epoch; -1 if gone or a zombie. */
static int64_t process_start(int pid)
{
	char path[256], buf[1024];
	unsigned long long start_ticks;
	size_t len;
	FILE *f;
	int ret;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%d/stat", sysvipc_proc_root, pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* the whole file, not a line: a command may hold a newline */
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (!len)
		return -1;
	buf[len] = '\0';
	ret = parse_pid_stat(buf, &start_ticks);
	if (ret == -ESRCH)
		return -1;
	if (ret)
		return 0;	/* cannot tell: as old as can be */
	return boot_time() + (int64_t)(start_ticks / sysconf(_SC_CLK_TCK));
}

/* one second of slack: both clocks count whole seconds */
static bool started_by(int64_t start, int64_t since)
{
	return start >= 0 && start <= since + 1;
}

bool process_alive_since(int pid, int64_t since)
{
	return started_by(process_start(pid), since);
}

static struct proc_entry *proc_slot(struct proc_cache *c, int pid)
{
	size_t i, mask;

	if (c->used * 2 >= c->cap) {
		struct proc_cache bigger = { .cap = c->cap ? c->cap * 2 : 64 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			return NULL;
		for (i = 0; i < c->cap; i++)
			if (c->slots[i].pid) {
				struct proc_entry *e = proc_slot(&bigger,
								 c->slots[i].pid);

				if (e)
					*e = c->slots[i];
			}
		free(c->slots);
		*c = bigger;
	}
	mask = c->cap - 1;
	for (i = (size_t)pid * 2654435761u & mask; c->slots[i].pid;
	     i = (i + 1) & mask)
		if (c->slots[i].pid == pid)
			return &c->slots[i];
	c->slots[i].pid = pid;
	c->used++;
	c->slots[i].start = process_start(pid);
	c->slots[i].comm_read = false;
	return &c->slots[i];
}

void proc_cache_reset(struct proc_cache *c)
{
	if (c->slots)
		memset(c->slots, 0, c->cap * sizeof(*c->slots));
	c->used = 0;
}

void proc_cache_free(struct proc_cache *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

bool proc_alive_since(struct proc_cache *c, int pid, int64_t since)
{
	struct proc_entry *e = pid > 0 ? proc_slot(c, pid) : NULL;

	return e ? started_by(e->start, since) :
		   process_alive_since(pid, since);
}

const char *proc_comm(struct proc_cache *c, int pid)
{
	struct proc_entry *e = pid > 0 ? proc_slot(c, pid) : NULL;

	if (!e)
		return "";
	if (!e->comm_read) {
		process_comm(pid, e->comm, sizeof(e->comm));
		e->comm_read = true;
	}
	return e->comm;
}

void process_comm(int pid, char *comm, size_t len)
{
	char path[256];
	size_t n;
	FILE *f;

	comm[0] = '\0';
	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "%s/%d/comm", sysvipc_proc_root, pid);
	f = fopen(path, "r");
	if (!f)
		return;
	/* the kernel adds one newline; a name may hold others */
	n = fread(comm, 1, len - 1, f);
	if (n && comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	fclose(f);
}

uint64_t process_cgroup(int pid, char *dir, size_t dirlen)
{
	char path[512], line[PATH_MAX];
	struct stat st;
	uint64_t id = 0;
	FILE *f;

	dir[0] = '\0';
	snprintf(path, sizeof(path), "%.480s/%d/cgroup", sysvipc_proc_root,
		 pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			/* a path too long to be a directory name is no cgroup */
			if ((size_t)snprintf(dir, dirlen, "/sys/fs/cgroup%s",
					     strcmp(line + 3, "/") ?
					     line + 3 : "") < dirlen &&
			    !stat(dir, &st))
				id = st.st_ino;
			else
				dir[0] = '\0';
		}
	fclose(f);
	return id;
}
