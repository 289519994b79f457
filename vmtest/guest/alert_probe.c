// SPDX-License-Identifier: GPL-2.0
/*
 * --alert-exec target of the enforce suite that reports what it was
 * given: its process group, open descriptors, blocked signals,
 * environment, where stdout goes and what came on stdin, one
 * "key value" line each in /tmp/alert-probe.out. Then it writes to
 * stdout, which must not reach the daemon's --json output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define OUT "/tmp/alert-probe.out"

static void report_fds(FILE *out)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	fputs("fds", out);
	if (!d) {
		fputs(" unreadable\n", out);
		return;
	}
	while ((e = readdir(d)))
		/* not the probe's own: the directory and the report */
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) &&
		    atoi(e->d_name) != fileno(out))
			fprintf(out, " %s", e->d_name);
	closedir(d);
	fputc('\n', out);
}

static void report_sigblk(FILE *out)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7))
			fprintf(out, "sigblk %s", line + 7 + strspn(line + 7, "\t "));
	if (f)
		fclose(f);
}

int main(void)
{
	char target[PATH_MAX], in[8192];
	char **e;
	ssize_t n;
	size_t got = 0;
	FILE *out = fopen(OUT ".tmp", "w");

	if (!out)
		return 1;
	fprintf(out, "pid %d\npgid %d\n", (int)getpid(), (int)getpgid(0));
	report_fds(out);
	report_sigblk(out);
	for (e = environ; *e; e++)
		fprintf(out, "env %s\n", *e);
	n = readlink("/proc/self/fd/1", target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	fprintf(out, "stdout %s\n", target);
	while (got < sizeof(in) - 1 &&
	       (n = read(0, in + got, sizeof(in) - 1 - got)) > 0)
		got += (size_t)n;
	in[got] = '\0';
	fprintf(out, "stdin %s", in);
	fclose(out);
	/* whole or not at all: the suite waits for the file */
	rename(OUT ".tmp", OUT);
	puts("LEAK-TO-STDOUT");
	return 0;
}
