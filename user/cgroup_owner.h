/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a cgroup path belongs to, as the path itself says: a container
 * (docker, containerd, CRI-O, podman), a Kubernetes pod, a systemd unit.
 * No container runtime is asked: the names are the ones the runtimes
 * and systemd give their cgroups.
 */
#ifndef IPCWATCH_CGROUP_OWNER_H
#define IPCWATCH_CGROUP_OWNER_H

#include <stddef.h>

struct cgroup_owner {
	char runtime[16];	/* "docker", "containerd", "cri-o", "podman", "" */
	char container[65];	/* container id, "" if none */
	char pod_uid[37];	/* Kubernetes pod uid, "" if none */
	char unit[128];		/* the innermost systemd service or scope */
};

/* Read @path ("/system.slice/docker-<id>.scope"); never fails. */
void cgroup_owner_parse(const char *path, struct cgroup_owner *o);

/*
 * A short label: "docker:0123456789ab", "pod:<uid>",
 * "unit:postgresql.service", or "" when the path says nothing.
 */
const char *cgroup_owner_label(const struct cgroup_owner *o, char *buf,
			       size_t len);

/*
 * The cgroup path of a cgroup v2 directory as process_cgroup() gives
 * it ("/sys/fs/cgroup/system.slice" -> "/system.slice"), "" if none.
 */
const char *cgroup_path_of(const char *dir);

#endif
