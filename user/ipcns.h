/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every IPC namespace alive on the host, and the tables of one of them
 * read inside it.
 *
 * Namespaces are found through /proc/<pid>/ns/ipc, through open
 * descriptors (/proc/<pid>/fd) and through nsfs bind mounts. None is
 * held open between reads, so watching a namespace never keeps it
 * alive. Its tables and sysctls are per namespace in the kernel, read
 * through the reader's own: a child process setns()es into it and reads
 * them there, so the caller's threads never change namespace.
 */
#ifndef IPCWATCH_IPCNS_H
#define IPCWATCH_IPCNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc_limits.h"
#include "sysvipc.h"

/* How a namespace was reached. */
enum ipcns_via {
	IPCNS_VIA_PROCESS,	/* /proc/<pid>/ns/ipc */
	IPCNS_VIA_FD,		/* an open descriptor /proc/<pid>/fd/<n> */
	IPCNS_VIA_MOUNT,	/* an nsfs bind mount */
};

struct ipcns {
	uint32_t inum;
	enum ipcns_via via;
	char path[256];		/* opened to enter it */
	int pid;		/* lowest member (VIA_PROCESS), else holder */
	unsigned int nprocs;	/* member processes */
	bool own;		/* the caller's */
};

struct ipcns_list {
	struct ipcns *ns;	/* sorted by inum */
	size_t n;
};

/*
 * Find every IPC namespace reachable under sysvipc_proc_root: 0, or
 * -errno with @err set. Namespaces only a descriptor or a mount keeps
 * are found where this process may read those.
 */
int ipcns_discover(struct ipcns_list *l, char *err, size_t errlen);
void ipcns_list_free(struct ipcns_list *l);
const struct ipcns *ipcns_find(const struct ipcns_list *l, uint32_t inum);

/*
 * The way into @ns failed with -ESRCH: its process or descriptor went,
 * not necessarily the namespace. Find it again: 0 with @ns updated, or
 * -ESRCH when it is gone indeed.
 */
int ipcns_refind(struct ipcns *ns);

/* The inode of "ipc:[4026531839]", 0 if the text is not one. */
uint32_t ipcns_parse_link(const char *link);

enum ipcns_table {
	IPCNS_LIMITS = 1 << 0,
	IPCNS_USAGE = 1 << 1,
	IPCNS_SHM = 1 << 2,
	IPCNS_SEM = 1 << 3,	/* with values, as read_sem_rows() */
	IPCNS_MSG = 1 << 4,
	IPCNS_ALL = (1 << 5) - 1,
};

/* What one namespace's kernel says, as sysvipc.c reads it. */
struct ipcns_tables {
	struct ipc_limits limits;
	struct ipc_usage usage;
	struct shm_row *shm;
	size_t nshm;
	struct sem_row *sem;
	size_t nsem;
	struct msg_row *msg;
	size_t nmsg;
};

/*
 * Read the @what tables of @ns (NULL or the caller's own: in this
 * process): 0, or -errno with @err naming the namespace. -ESRCH when
 * the namespace is gone.
 */
int ipcns_read(const struct ipcns *ns, unsigned int what,
	       struct ipcns_tables *t, char *err, size_t errlen);
void ipcns_tables_free(struct ipcns_tables *t);

/*
 * ipcns_read() of @n foreign namespaces by one child, entering each in
 * turn: @t[i] and @ret[i] for @ns[i]. No error text: a result other
 * than 0 is only a hint, to be read again alone for its error (-EPIPE:
 * the helper died or was late before answering it).
 */
void ipcns_read_many(const struct ipcns *const *ns, size_t n,
		     unsigned int what, struct ipcns_tables *t, int *ret);

/* Runs inside a namespace: fills @out, returns 0 or -errno (or > 0). */
typedef int (*ipcns_fn)(void *arg, void *out);

/*
 * @fn(@arg, @out) inside @ns (NULL or the caller's own: here), by the
 * same setns() child; @out (@outlen bytes) comes back filled. Its
 * return value, or -errno of entering with @err set (-ESRCH: gone).
 */
int ipcns_call(const struct ipcns *ns, ipcns_fn fn, void *arg, void *out,
	       size_t outlen, char *err, size_t errlen);


#include "cgroup_owner.h"

/* Who a namespace belongs to, from the cgroup of its lowest member. */
struct ipcns_identity {
	char cgroup[512];	/* "" if unknown (no member, or gone) */
	struct cgroup_owner owner;
	char label[96];		/* cgroup_owner_label(), "" if none */
};

void ipcns_identify(const struct ipcns *ns, struct ipcns_identity *id);
const char *ipcns_via_name(enum ipcns_via via);	/* "process" */

struct json_writer;

/* "ipcns", "own", "processes", "reached_via", "pid", "cgroup", ... */
void ipcns_identity_json(struct json_writer *jw, const struct ipcns *ns,
			 const struct ipcns_identity *id);

#endif
