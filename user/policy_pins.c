// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "policy_pins.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define INFO_MAP "pin_info"

static int pin_path(char *buf, size_t len, const char *dir, const char *sub,
		    const char *name)
{
	int n = snprintf(buf, len, "%s/%s/", dir, sub);
	size_t i;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* bpffs refuses dots in names ("policy_b.bss"): reserved */
	for (i = 0; name[i]; i++) {
		if ((size_t)n + 1 >= len)
			return -ENAMETOOLONG;
		buf[n++] = name[i] == '.' ? '_' : name[i];
	}
	buf[n] = '\0';
	return 0;
}

uint64_t pins_build_id(const void *elf, size_t size)
{
	const unsigned char *p = elf;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t pins_process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	size_t n;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command may hold spaces and parentheses: count from the last */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	return start;
}

/* Whether @dir or its maps/ and links/ hold anything. */
static bool holds_anything(const char *dir)
{
	static const char *const subs[] = { "", "maps", "links" };
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	size_t i;
	DIR *d;

	for (i = 0; i < 3 && !any; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			    (i || (strcmp(de->d_name, "maps") &&
				   strcmp(de->d_name, "links"))))
				any = true;
		closedir(d);
	}
	return any;
}

int pins_read_info(const char *dir, struct ipcw_pin_info *info)
{
	char path[PATH_MAX];
	uint32_t zero = 0;
	int fd, ret;

	memset(info, 0, sizeof(*info));
	if (pin_path(path, sizeof(path), dir, "maps", INFO_MAP))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = bpf_map_lookup_elem(fd, &zero, info) ? -errno : 0;
	close(fd);
	return ret;
}

bool pins_holder_alive(const struct ipcw_pin_info *info)
{
	return info->pid && info->starttime &&
	       pins_process_start((pid_t)info->pid) == info->starttime;
}

int pins_find(const char *dir, uint64_t build, enum pins_state *state,
	      struct ipcw_pin_info *info, char *err, size_t errlen)
{
	char parent[PATH_MAX], *slash;
	struct statfs sfs;
	struct stat st;
	int ret;

	memset(info, 0, sizeof(*info));
	*state = PINS_NONE;
	snprintf(parent, sizeof(parent), "%s", dir);
	if (stat(dir, &st)) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -errno;
		}
		/* not there yet: made in its parent, which must be bpffs */
		slash = strrchr(parent, '/');
		if (slash && slash != parent)
			*slash = '\0';
		else
			snprintf(parent, sizeof(parent), "/");
	}
	if (statfs(parent, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		snprintf(err, errlen,
			 "%s is not on a BPF filesystem, where the policy is "
			 "pinned (mount -t bpf bpf /sys/fs/bpf, or --pin-dir)",
			 parent);
		return -ENOTDIR;
	}
	if (strcmp(parent, dir))
		return 0;
	ret = pins_read_info(dir, info);
	if (ret == -ENOENT) {
		/* pin_info is pinned last: a start that died on the way */
		if (holds_anything(dir))
			*state = PINS_UNFINISHED;
		return 0;
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	if (!info->ready && !pins_holder_alive(info)) {
		*state = PINS_UNFINISHED;
		return 0;
	}
	if (info->build != build) {
		snprintf(err, errlen,
			 "%s holds the policy programs of another ipcwatch "
			 "build, still enforcing: `ipcwatch enforce --stop` "
			 "detaches them", dir);
		return -EEXIST;
	}
	*state = pins_holder_alive(info) ? PINS_HELD : PINS_ORPHANED;
	return 0;
}

int pins_reuse_maps(const char *dir, struct bpf_object_skeleton *s,
		    char *err, size_t errlen)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < s->map_cnt; i++) {
		struct bpf_map *map = *s->maps[i].map;

		if (pin_path(path, sizeof(path), dir, "maps",
			     bpf_map__name(map)) ||
		    access(path, F_OK) || bpf_map__set_pin_path(map, path)) {
			snprintf(err, errlen,
				 "%s: the pinned map %s is missing: `ipcwatch "
				 "enforce --stop` clears the pins", dir,
				 bpf_map__name(map));
			return -ENOENT;
		}
	}
	return 0;
}

int pins_open_links(const char *dir, struct bpf_object_skeleton *s,
		    char *err, size_t errlen)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_link *link = NULL;

		if (!pin_path(path, sizeof(path), dir, "links",
			      bpf_program__name(*s->progs[i].prog)))
			link = bpf_link__open(path);
		if (!link) {
			snprintf(err, errlen,
				 "%s: the pinned link of %s is missing: "
				 "`ipcwatch enforce --stop` clears the pins",
				 dir, bpf_program__name(*s->progs[i].prog));
			return -ENOENT;
		}
		*s->progs[i].link = link;
	}
	return 0;
}

int pins_save(const char *dir, struct bpf_object_skeleton *s, char *err,
	      size_t errlen)
{
	struct bpf_map *info = NULL;
	char path[PATH_MAX];
	const char *what = dir;
	int i, ret = 0;

	if ((mkdir(dir, 0700) && errno != EEXIST) ||
	    (snprintf(path, sizeof(path), "%s/maps", dir),
	     mkdir(path, 0700) && errno != EEXIST) ||
	    (snprintf(path, sizeof(path), "%s/links", dir),
	     mkdir(path, 0700) && errno != EEXIST)) {
		ret = -errno;
		goto fail;
	}
	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_link *link = *s->progs[i].link;

		what = bpf_program__name(*s->progs[i].prog);
		if (!link)
			continue;
		ret = pin_path(path, sizeof(path), dir, "links", what);
		if (ret || (ret = bpf_link__pin(link, path)))
			goto fail;
	}
	for (i = 0; i < s->map_cnt; i++) {
		struct bpf_map *map = *s->maps[i].map;

		what = bpf_map__name(map);
		if (!strcmp(what, INFO_MAP)) {
			info = map;
			continue;
		}
		ret = pin_path(path, sizeof(path), dir, "maps", what);
		if (ret || (ret = bpf_map__pin(map, path)))
			goto fail;
	}
	/* last: its pin says the others are all there */
	what = INFO_MAP;
	ret = !info ? -ENOENT : pin_path(path, sizeof(path), dir, "maps", what);
	if (!ret)
		ret = bpf_map__pin(info, path);
	if (!ret)
		return 0;
fail:
	snprintf(err, errlen, "cannot pin %s in %s: %s", what, dir,
		 strerror(-ret));
	pins_remove(dir);
	return ret;
}

int pins_claim(int info_fd, uint64_t build, uint32_t max_owners)
{
	struct ipcw_pin_info info;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(info_fd, &zero, &info))
		memset(&info, 0, sizeof(info));
	info.build = build;
	info.starttime = pins_process_start(getpid());
	info.pid = (uint32_t)getpid();
	info.max_owners = max_owners;
	return bpf_map_update_elem(info_fd, &zero, &info, BPF_ANY) ? -errno : 0;
}

int pins_mark_ready(int info_fd, uint32_t unseeded)
{
	struct ipcw_pin_info info;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(info_fd, &zero, &info))
		return -errno;
	info.ready = 1;
	info.unseeded = unseeded;
	return bpf_map_update_elem(info_fd, &zero, &info, BPF_ANY) ? -errno : 0;
}

int pins_lock(const char *dir)
{
	char parent[PATH_MAX], *slash;
	size_t len;
	int fd;

	snprintf(parent, sizeof(parent), "%s", dir);
	/* "/sys/fs/bpf/ipcwatch/" is the same directory as without the / */
	for (len = strlen(parent); len > 1 && parent[len - 1] == '/'; len--)
		parent[len - 1] = '\0';
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), "/");
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* held for seconds at most: a start, or a removal */
	if (flock(fd, LOCK_EX)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

int pins_remove(const char *dir)
{
	char path[PATH_MAX];

	/*
	 * The check first, so no request meets it without the programs that
	 * record its size and credits; then the other links, so programs
	 * stop before their maps go.
	 */
	snprintf(path, sizeof(path), "%s/links/%s", dir, PINS_CHECK_LINK);
	if (remove(path) && errno != ENOENT)
		return -errno;
	snprintf(path, sizeof(path), "%s/links", dir);
	if (nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	if (nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	return 0;
}
