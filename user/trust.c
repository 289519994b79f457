// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* @st (of @path) owned by root, not writable by group or others */
static int trusted_inode(const char *path, const struct stat *st,
			 const char *what, char *err, size_t errlen)
{
	if (st->st_uid != 0) {
		snprintf(err, errlen, "%s: %s owned by uid %u, not root",
			 path, what, (unsigned int)st->st_uid);
		return -1;
	}
	/* no sticky-bit exception: sshd makes none either */
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "%s: %s writable by group or others (mode %04o)", path,
			 what, (unsigned int)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Every directory above the absolute @path, up to and including "/". */
static int trusted_parents(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		snprintf(err, errlen, "%.64s...: path too long", path);
		return -1;
	}
	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		if (slash == dir)
			slash[1] = '\0';	/* the root itself */
		else
			*slash = '\0';
		if (stat(dir, &st)) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
		if (trusted_inode(dir, &st, "directory", err, errlen))
			return -1;
		if (!strcmp(dir, "/"))
			return 0;
	}
}

int trust_file(const char *path, bool exec, char *err, size_t errlen)
{
	char given[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (!realpath(path, real)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (stat(real, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (exec && !(st.st_mode & S_IXUSR)) {
		snprintf(err, errlen, "%s: not executable", path);
		return -1;
	}
	if (trusted_inode(path, &st, "file", err, errlen))
		return -1;
	/*
	 * The directories of the path as given hold any symbolic link on
	 * the way, those of the resolved path the file itself: whoever
	 * can write to either can swap what is read.
	 */
	if (path[0] == '/') {
		snprintf(given, sizeof(given), "%s", path);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)) ||
		    snprintf(given, sizeof(given), "%s/%s", cwd, path) >=
			    (int)sizeof(given)) {
			snprintf(err, errlen, "%s: cannot resolve the working "
				 "directory", path);
			return -1;
		}
	}
	if (trusted_parents(given, err, errlen))
		return -1;
	return strcmp(given, real) ? trusted_parents(real, err, errlen) : 0;
}
