// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* setns */
#include "ipcns.h"

#include "json_writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

uint32_t ipcns_parse_link(const char *link)
{
	unsigned long long v;
	char end;

	if (sscanf(link, "ipc:[%llu%c", &v, &end) != 2 || end != ']' ||
	    !v || v > UINT32_MAX || strchr(link, ']')[1])
		return 0;
	return (uint32_t)v;
}

static uint32_t own_inum(void)
{
	char path[256], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/self/ns/ipc", sysvipc_proc_root);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return ipcns_parse_link(link);
}

/* The entry of @inum, added if new; NULL without memory. */
static struct ipcns *slot(struct ipcns_list *l, size_t *cap, uint32_t inum,
			  bool *added)
{
	size_t i;

	*added = false;
	for (i = 0; i < l->n; i++)
		if (l->ns[i].inum == inum)
			return &l->ns[i];
	if (l->n == *cap) {
		size_t bigger = *cap ? *cap * 2 : 16;
		struct ipcns *ns = realloc(l->ns, bigger * sizeof(*ns));

		if (!ns)
			return NULL;
		l->ns = ns;
		*cap = bigger;
	}
	memset(&l->ns[l->n], 0, sizeof(l->ns[0]));
	l->ns[l->n].inum = inum;
	*added = true;
	return &l->ns[l->n++];
}

static bool is_pid(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

/* Descriptors of @pid that are IPC namespaces. */
static int scan_fds(struct ipcns_list *l, size_t *cap, int pid)
{
	char dir[192], path[256], link[64];
	struct dirent *d;
	DIR *fds;

	snprintf(dir, sizeof(dir), "%s/%d/fd", sysvipc_proc_root, pid);
	fds = opendir(dir);
	if (!fds)
		return 0;	/* gone, or not ours to read */
	while ((d = readdir(fds))) {
		struct ipcns *ns;
		uint32_t inum;
		bool added;
		ssize_t n;

		if (!is_pid(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%.32s", dir, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		inum = ipcns_parse_link(link);
		if (!inum)
			continue;
		ns = slot(l, cap, inum, &added);
		if (!ns) {
			closedir(fds);
			return -ENOMEM;
		}
		if (added) {
			ns->via = IPCNS_VIA_FD;
			ns->pid = pid;
			snprintf(ns->path, sizeof(ns->path), "%s", path);
		}
	}
	closedir(fds);
	return 0;
}

/* nsfs bind mounts: "... ipc:[N] /mount/point ... - nsfs nsfs rw" */
static int scan_mounts(struct ipcns_list *l, size_t *cap)
{
	char path[256], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/mountinfo", sysvipc_proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char root[64], point[256];
		const char *sep = strstr(line, " - nsfs ");
		struct ipcns *ns;
		uint32_t inum;
		bool added;

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %63s %255s", root, point) != 2)
			continue;
		inum = ipcns_parse_link(root);
		if (!inum)
			continue;
		ns = slot(l, cap, inum, &added);
		if (!ns) {
			fclose(f);
			return -ENOMEM;
		}
		/* octal escapes (\040) in a mount point: not worth a parser */
		if (added && !strchr(point, '\\')) {
			ns->via = IPCNS_VIA_MOUNT;
			snprintf(ns->path, sizeof(ns->path), "%s", point);
		} else if (added) {
			l->n--;
		}
	}
	fclose(f);
	return 0;
}

static int compare_inum(const void *a, const void *b)
{
	const struct ipcns *x = a, *y = b;

	return (x->inum > y->inum) - (x->inum < y->inum);
}

int ipcns_discover(struct ipcns_list *l, char *err, size_t errlen)
{
	uint32_t own = own_inum();
	size_t cap = 0, i;
	struct dirent *d;
	DIR *proc;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	proc = opendir(sysvipc_proc_root);
	if (!proc) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", sysvipc_proc_root,
			 strerror(-ret));
		return ret;
	}
	while (!ret && (d = readdir(proc))) {
		char path[256], link[64];
		struct ipcns *ns;
		uint32_t inum;
		bool added;
		ssize_t n;
		int pid;

		if (!is_pid(d->d_name))
			continue;
		pid = atoi(d->d_name);
		snprintf(path, sizeof(path), "%s/%d/ns/ipc", sysvipc_proc_root,
			 pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			inum = ipcns_parse_link(link);
			if (inum) {
				ns = slot(l, &cap, inum, &added);
				if (!ns) {
					ret = -ENOMEM;
					break;
				}
				/* the lowest pid: a container's init */
				if (ns->via != IPCNS_VIA_PROCESS || added ||
				    pid < ns->pid) {
					ns->via = IPCNS_VIA_PROCESS;
					ns->pid = pid;
					snprintf(ns->path, sizeof(ns->path),
						 "%s", path);
				}
				ns->nprocs++;
			}
		}
		ret = scan_fds(l, &cap, pid);
	}
	closedir(proc);
	if (!ret)
		ret = scan_mounts(l, &cap);
	if (ret) {
		snprintf(err, errlen, "finding IPC namespaces: %s",
			 strerror(-ret));
		ipcns_list_free(l);
		return ret;
	}
	for (i = 0; i < l->n; i++)
		l->ns[i].own = l->ns[i].inum == own;
	if (l->n)
		qsort(l->ns, l->n, sizeof(*l->ns), compare_inum);
	return 0;
}

void ipcns_list_free(struct ipcns_list *l)
{
	free(l->ns);
	memset(l, 0, sizeof(*l));
}

int ipcns_refind(struct ipcns *ns)
{
	struct ipcns_list l;
	const struct ipcns *found;
	char err[256];
	int ret = ipcns_discover(&l, err, sizeof(err));

	if (ret)
		return ret;
	found = ipcns_find(&l, ns->inum);
	if (found)
		*ns = *found;
	ipcns_list_free(&l);
	return found ? 0 : -ESRCH;
}

const struct ipcns *ipcns_find(const struct ipcns_list *l, uint32_t inum)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->ns[mid].inum == inum)
			return &l->ns[mid];
		if (l->ns[mid].inum < inum)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ipcns_tables_free(struct ipcns_tables *t)
{
	free(t->shm);
	free_sem_rows(t->sem, t->nsem);
	free(t->msg);
	memset(t, 0, sizeof(*t));
}

/* Read in the caller's namespace, whatever it is now. */
static int read_here(unsigned int what, struct ipcns_tables *t, char *err,
		     size_t errlen)
{
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if ((what & IPCNS_LIMITS) &&
	    (ret = read_ipc_limits(&t->limits, err, errlen)))
		goto fail;
	if ((what & IPCNS_USAGE) &&
	    (ret = read_ipc_usage(&t->usage, err, errlen)))
		goto fail;
	if ((what & IPCNS_SHM) &&
	    (ret = read_shm_rows(&t->shm, &t->nshm, err, errlen)))
		goto fail;
	if ((what & IPCNS_SEM) &&
	    (ret = read_sem_rows(&t->sem, &t->nsem, err, errlen)))
		goto fail;
	if ((what & IPCNS_MSG) &&
	    (ret = read_msg_rows(&t->msg, &t->nmsg, err, errlen)))
		goto fail;
	return 0;
fail:
	ipcns_tables_free(t);
	return ret;
}

/*
 * The child's answer on the pipe: this header, the shm rows, each sem
 * row followed by its four value arrays when known, the msg rows. The
 * child is a fork of this process, not another program: the structs
 * have the same layout on both ends.
 */
struct wire_head {
	int32_t ret;
	char err[256];
	struct ipc_limits limits;
	struct ipc_usage usage;
	uint64_t nshm, nsem, nmsg;
};

/* Far above any kernel's: semmsl and the ids are 32k at most. */
#define WIRE_MAX_ROWS (1u << 20)
#define WIRE_MAX_NSEMS (1 << 20)

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A helper answers within this, or is killed: a stuck one (a read that
 * blocks) must not stop the daemon's loop. */
#define HELPER_TIMEOUT_MS 5000

/* Read @len bytes by the deadline (monotonic ms): 0, -1 short or late. */
static int read_all(int fd, void *buf, size_t len)
{
	struct timespec now;
	char *p = buf;
	long long deadline;

	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = now.tv_sec * 1000LL + now.tv_nsec / 1000000 +
		   HELPER_TIMEOUT_MS;
	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = deadline - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
		if (left <= 0)
			return -1;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void send_tables(int fd, const struct ipcns_tables *t, int ret,
			const char *err)
{
	struct wire_head h;
	size_t i;

	memset(&h, 0, sizeof(h));
	h.ret = ret;
	snprintf(h.err, sizeof(h.err), "%s", err);
	h.limits = t->limits;
	h.usage = t->usage;
	h.nshm = t->nshm;
	h.nsem = t->nsem;
	h.nmsg = t->nmsg;
	if (write_all(fd, &h, sizeof(h)) ||
	    (t->nshm && write_all(fd, t->shm, t->nshm * sizeof(*t->shm))))
		return;
	for (i = 0; i < t->nsem; i++) {
		struct sem_row r = t->sem[i];
		size_t len = (size_t)(r.nsems > 0 ? r.nsems : 0) * sizeof(int);

		r.values_known = r.values_known && r.val;
		if (write_all(fd, &r, sizeof(r)))
			return;
		if (r.values_known &&
		    (write_all(fd, r.val, len) || write_all(fd, r.ncnt, len) ||
		     write_all(fd, r.zcnt, len) || write_all(fd, r.pid, len)))
			return;
	}
	if (t->nmsg)
		write_all(fd, t->msg, t->nmsg * sizeof(*t->msg));
}

static int receive_tables(int fd, struct ipcns_tables *t, char *err,
			  size_t errlen)
{
	struct wire_head h;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (read_all(fd, &h, sizeof(h)))
		return -EPIPE;
	if (h.ret) {
		h.err[sizeof(h.err) - 1] = '\0';
		snprintf(err, errlen, "%s", h.err);
		return h.ret < 0 ? h.ret : -EIO;
	}
	if (h.nshm > WIRE_MAX_ROWS || h.nsem > WIRE_MAX_ROWS ||
	    h.nmsg > WIRE_MAX_ROWS)
		return -EPROTO;
	t->limits = h.limits;
	t->usage = h.usage;
	t->shm = calloc(h.nshm ? h.nshm : 1, sizeof(*t->shm));
	t->sem = calloc(h.nsem ? h.nsem : 1, sizeof(*t->sem));
	t->msg = calloc(h.nmsg ? h.nmsg : 1, sizeof(*t->msg));
	if (!t->shm || !t->sem || !t->msg)
		goto nomem;
	t->nshm = h.nshm;
	t->nmsg = h.nmsg;
	if (h.nshm && read_all(fd, t->shm, h.nshm * sizeof(*t->shm)))
		goto short_read;
	for (i = 0; i < h.nsem; i++) {
		struct sem_row *r = &t->sem[i];
		size_t len;

		if (read_all(fd, r, sizeof(*r)))
			goto short_read;
		r->val = r->ncnt = r->zcnt = r->pid = NULL;
		t->nsem = i + 1;
		if (!r->values_known)
			continue;
		if (r->nsems <= 0 || r->nsems > WIRE_MAX_NSEMS)
			goto bad;
		len = (size_t)r->nsems * sizeof(int);
		r->val = malloc(len);
		r->ncnt = malloc(len);
		r->zcnt = malloc(len);
		r->pid = malloc(len);
		if (!r->val || !r->ncnt || !r->zcnt || !r->pid)
			goto nomem;
		if (read_all(fd, r->val, len) || read_all(fd, r->ncnt, len) ||
		    read_all(fd, r->zcnt, len) || read_all(fd, r->pid, len))
			goto short_read;
	}
	if (h.nmsg && read_all(fd, t->msg, h.nmsg * sizeof(*t->msg)))
		goto short_read;
	return 0;
nomem:
	ipcns_tables_free(t);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
short_read:
	ipcns_tables_free(t);
	return -EPIPE;
bad:
	ipcns_tables_free(t);
	return -EPROTO;
}

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/*
 * In the child: enter @ns, or -errno with @err set. The path is opened
 * O_PATH first: it may now be another file (a descriptor number or a
 * pid reused, a FIFO that would block an open), and only an nsfs inode
 * of the right number is opened for real, through the O_PATH one.
 */
static int enter(const struct ipcns *ns, char *err, size_t errlen)
{
	char again[64];
	struct statfs sfs;
	struct stat st;
	int pathfd, nsfd, ret = 0;

	pathfd = open(ns->path, O_PATH | O_CLOEXEC);
	if (pathfd < 0) {
		ret = errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
		snprintf(err, errlen, "IPC namespace %u: %.160s: %s",
			 ns->inum, ns->path, strerror(errno));
		return ret;
	}
	if (fstatfs(pathfd, &sfs) || sfs.f_type != NSFS_MAGIC ||
	    fstat(pathfd, &st) || st.st_ino != ns->inum) {
		close(pathfd);
		snprintf(err, errlen, "IPC namespace %u is gone", ns->inum);
		return -ESRCH;
	}
	snprintf(again, sizeof(again), "/proc/self/fd/%d", pathfd);
	nsfd = open(again, O_RDONLY | O_CLOEXEC);
	close(pathfd);
	if (nsfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "IPC namespace %u: %s", ns->inum,
			 strerror(errno));
		return ret;
	}
	if (setns(nsfd, CLONE_NEWIPC)) {
		ret = -errno;
		snprintf(err, errlen, "entering IPC namespace %u: %s%s",
			 ns->inum, strerror(errno),
			 errno == EPERM ? " (needs CAP_SYS_ADMIN)" : "");
	}
	close(nsfd);
	return ret;
}

/* In the child: enter @ns and answer on @fd. Never returns. */
static void child_read(const struct ipcns *ns, unsigned int what, int fd)
{
	struct ipcns_tables t = { 0 };
	char err[256] = "";
	int ret = enter(ns, err, sizeof(err));

	if (!ret) {
		ret = read_here(what, &t, err, sizeof(err));
		if (ret) {
			char inner[256];

			snprintf(inner, sizeof(inner), "%s", err);
			snprintf(err, sizeof(err), "IPC namespace %u: %.200s",
				 ns->inum, inner);
		}
	}
	send_tables(fd, &t, ret, err);
	_exit(0);
}

/* fork() with a pipe from the child: its pid, or -errno with @err set. */
static pid_t fork_reader(int *rfd, int *wfd, char *err, size_t errlen)
{
	int fds[2], ret;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-ret));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		snprintf(err, errlen, "fork: %s", strerror(-ret));
		return ret;
	}
	if (pid == 0) {
		sigset_t none;

		/*
		 * The daemon's blocked signals are no helper's: killable. A
		 * SIGHUP (a reload, a hangup of the process group) is the
		 * daemon's alone: ignored here, which drops one pending.
		 */
		signal(SIGHUP, SIG_IGN);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		close(fds[0]);
	} else {
		close(fds[1]);
	}
	*rfd = fds[0];
	*wfd = fds[1];
	return pid;
}

/* Reap the helper; one that did not answer in time is killed first. */
static void reap_reader(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);	/* done or stuck: it has nothing left to say */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

int ipcns_call(const struct ipcns *ns, ipcns_fn fn, void *arg, void *out,
	       size_t outlen, char *err, size_t errlen)
{
	int rfd, wfd, ret;
	char msg[256] = "";
	pid_t pid;

	if (!ns || ns->own)
		return fn(arg, out);
	pid = fork_reader(&rfd, &wfd, err, errlen);
	if (pid < 0)
		return pid;
	if (pid == 0) {
		int32_t r = enter(ns, msg, sizeof(msg));

		if (!r)
			r = fn(arg, out);
		if (!write_all(wfd, &r, sizeof(r)) &&
		    !write_all(wfd, msg, sizeof(msg)))
			write_all(wfd, out, outlen);
		_exit(0);
	}
	{
		int32_t r;

		if (read_all(rfd, &r, sizeof(r)) ||
		    read_all(rfd, msg, sizeof(msg)) ||
		    read_all(rfd, out, outlen)) {
			snprintf(err, errlen,
				 "IPC namespace %u: the helper died", ns->inum);
			ret = -EPIPE;
		} else {
			msg[sizeof(msg) - 1] = '\0';
			if (msg[0])
				snprintf(err, errlen, "%s", msg);
			ret = r;
		}
	}
	close(rfd);
	reap_reader(pid);
	return ret;
}

int ipcns_read(const struct ipcns *ns, unsigned int what,
	       struct ipcns_tables *t, char *err, size_t errlen)
{
	int rfd, wfd, ret;
	pid_t pid;

	if (!ns || ns->own)
		return read_here(what, t, err, errlen);
	pid = fork_reader(&rfd, &wfd, err, errlen);
	if (pid < 0)
		return pid;
	if (pid == 0)
		child_read(ns, what, wfd);
	ret = receive_tables(rfd, t, err, errlen);
	close(rfd);
	reap_reader(pid);
	if (ret == -EPIPE || ret == -EPROTO)
		snprintf(err, errlen,
			 "IPC namespace %u: the reader died or answered "
			 "badly", ns->inum);
	return ret;
}

/* In the child: each namespace in turn, answered in order. */
static void child_read_many(const struct ipcns *const *ns, size_t n,
			    unsigned int what, int fd)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ipcns_tables t = { 0 };
		char err[256] = "";
		int ret = enter(ns[i], err, sizeof(err));

		if (!ret) {
			ret = read_here(what, &t, err, sizeof(err));
			if (ret) {
				char inner[256];

				snprintf(inner, sizeof(inner), "%s", err);
				snprintf(err, sizeof(err),
					 "IPC namespace %u: %.200s",
					 ns[i]->inum, inner);
			}
		}
		send_tables(fd, &t, ret, err);
		ipcns_tables_free(&t);
	}
	_exit(0);
}

void ipcns_read_many(const struct ipcns *const *ns, size_t n,
		     unsigned int what, struct ipcns_tables *t, int *ret)
{
	char err[256];
	size_t i = 0;
	int rfd, wfd;
	pid_t pid = -1;

	memset(t, 0, n * sizeof(*t));
	if (n)
		pid = fork_reader(&rfd, &wfd, err, sizeof(err));
	if (!n || pid < 0)
		goto rest;
	if (pid == 0)
		child_read_many(ns, n, what, wfd);
	for (; i < n; i++) {
		ret[i] = receive_tables(rfd, &t[i], err, sizeof(err));
		/* a dead or late helper answers none of the rest */
		if (ret[i] == -EPIPE || ret[i] == -EPROTO)
			break;
	}
	close(rfd);
	reap_reader(pid);
rest:
	for (; i < n; i++)
		ret[i] = -EPIPE;
}

const char *ipcns_via_name(enum ipcns_via via)
{
	switch (via) {
	case IPCNS_VIA_PROCESS:
		return "process";
	case IPCNS_VIA_FD:
		return "descriptor";
	case IPCNS_VIA_MOUNT:
		return "mount";
	}
	return "?";
}

void ipcns_identify(const struct ipcns *ns, struct ipcns_identity *id)
{
	char dir[PATH_MAX];

	memset(id, 0, sizeof(*id));
	/* a descriptor's holder is often a runtime or an agent: no owner */
	if (ns->via == IPCNS_VIA_PROCESS && ns->pid > 0 &&
	    process_cgroup(ns->pid, dir, sizeof(dir)))
		snprintf(id->cgroup, sizeof(id->cgroup), "%s",
			 cgroup_path_of(dir));
	cgroup_owner_parse(id->cgroup, &id->owner);
	/* a pod's containers share its IPC namespace: it is the pod's */
	if (id->owner.pod_uid[0])
		snprintf(id->label, sizeof(id->label), "pod:%s",
			 id->owner.pod_uid);
	else
		cgroup_owner_label(&id->owner, id->label, sizeof(id->label));
}

void ipcns_identity_json(struct json_writer *jw, const struct ipcns *ns,
			 const struct ipcns_identity *id)
{
	jw_kv_uint(jw, "ipcns", ns->inum);
	jw_kv_bool(jw, "own", ns->own);
	jw_kv_uint(jw, "processes", ns->nprocs);
	jw_kv_string(jw, "reached_via", ipcns_via_name(ns->via));
	jw_kv_int(jw, "pid", ns->pid);
	jw_kv_string(jw, "cgroup", id->cgroup);
	jw_kv_string(jw, "owner", id->label);
	jw_kv_string(jw, "runtime", id->owner.runtime);
	jw_kv_string(jw, "container", id->owner.container);
	jw_kv_string(jw, "pod_uid", id->owner.pod_uid);
	jw_kv_string(jw, "unit", id->owner.unit);
}
