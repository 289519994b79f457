// SPDX-License-Identifier: GPL-2.0
#include "cgroup_owner.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>


static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

/* A container id: 64 lower-case hex digits, as every runtime names them */
static bool container_id(const char *s, size_t n)
{
	return n == 64 && all_hex(s, n);
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static void copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "<prefix><64 hex>.scope": the scope systemd-managed runtimes make */
static bool scoped_container(const char *c, size_t n, const char *prefix,
			     const char *runtime, struct cgroup_owner *o)
{
	size_t k = strlen(prefix);

	if (n != k + 64 + strlen(".scope") || memcmp(c, prefix, k) ||
	    !ends_with(c, n, ".scope") || !container_id(c + k, 64))
		return false;
	snprintf(o->runtime, sizeof(o->runtime), "%s", runtime);
	copy(o->container, sizeof(o->container), c + k, 64);
	return true;
}

/* "pod<uid>" or "kubepods-<qos>-pod<uid>.slice" (uid with '_' for '-') */
static bool pod_component(const char *c, size_t n, struct cgroup_owner *o)
{
	const char *p = NULL;
	size_t len, i;

	if (n > 3 && !memcmp(c, "pod", 3)) {
		p = c + 3;
		len = n - 3;
	} else if (n > 8 && !memcmp(c, "kubepods", 8) &&
		   ends_with(c, n, ".slice")) {
		const char *q = NULL;

		for (i = 0; i + 4 <= n; i++)
			if (!memcmp(c + i, "-pod", 4))
				q = c + i + 4;
		if (!q)
			return false;
		p = q;
		len = (size_t)(c + n - strlen(".slice") - q);
	}
	if (!p || len != 36)
		return false;
	for (i = 0; i < len; i++) {
		char ch = p[i];

		if (!(all_hex(&ch, 1) || ch == '-' || ch == '_'))
			return false;
	}
	copy(o->pod_uid, sizeof(o->pod_uid), p, len);
	for (i = 0; i < len; i++)
		if (o->pod_uid[i] == '_')
			o->pod_uid[i] = '-';
	return true;
}

void cgroup_owner_parse(const char *path, struct cgroup_owner *o)
{
	const char *c = path, *prev = NULL;
	size_t prev_len = 0;

	memset(o, 0, sizeof(*o));
	while (c && *c) {
		const char *slash;
		size_t n;

		while (*c == '/')
			c++;
		slash = strchr(c, '/');
		n = slash ? (size_t)(slash - c) : strlen(c);
		if (!n)
			break;
		/*
		 * The outermost container and pod only: a container with a
		 * delegated subtree could name a cgroup inside it after
		 * another container.
		 */
		if (o->container[0]) {
			/* inside a container: only the unit may change */
		} else if (scoped_container(c, n, "docker-", "docker", o) ||
		    scoped_container(c, n, "cri-containerd-", "containerd",
				     o) ||
		    scoped_container(c, n, "crio-", "cri-o", o) ||
		    scoped_container(c, n, "libpod-", "podman", o)) {
			/* the container's scope is the unit systemd knows */
		} else if (container_id(c, n) && prev) {
			/* cgroupfs driver: /docker/<id>, /kubepods/.../<id> */
			if (prev_len == 6 && !memcmp(prev, "docker", 6))
				snprintf(o->runtime, sizeof(o->runtime),
					 "docker");
			copy(o->container, sizeof(o->container), c, n);
		} else if (!o->pod_uid[0] && pod_component(c, n, o)) {
			/* the pod uid is kept */
		}
		if (ends_with(c, n, ".service") || ends_with(c, n, ".scope"))
			copy(o->unit, sizeof(o->unit), c, n);
		prev = c;
		prev_len = n;
		c = slash;
	}
}

const char *cgroup_owner_label(const struct cgroup_owner *o, char *buf,
			       size_t len)
{
	if (o->container[0])
		snprintf(buf, len, "%s:%.12s",
			 o->runtime[0] ? o->runtime : "container",
			 o->container);
	else if (o->pod_uid[0])
		snprintf(buf, len, "pod:%s", o->pod_uid);
	else if (o->unit[0])
		snprintf(buf, len, "unit:%s", o->unit);
	else
		buf[0] = '\0';
	return buf;
}

const char *cgroup_path_of(const char *dir)
{
	static const char root[] = "/sys/fs/cgroup";

	if (strncmp(dir, root, sizeof(root) - 1))
		return "";
	return dir[sizeof(root) - 1] ? dir + sizeof(root) - 1 : "/";
}
