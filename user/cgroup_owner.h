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
 * The cgroup v2 path of @pid from <proc root>/<pid>/cgroup: 0, or
 * -errno (gone, or a cgroup v1 only host).
 */
int process_cgroup_path(int pid, char *path, size_t len);

#endif
