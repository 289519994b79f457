// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch policy check FILE: validate a policy file and say what each
 * rule will do; every error is listed as file:line: what is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "policy.h"
#include "sysvipc.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: ipcwatch policy check FILE\n\n"
		"Check a policy file and describe what each rule does.\n");
}

int cmd_policy(int argc, char **argv)
{
	struct ipc_limits l;
	struct policy *p;
	char err[8192];
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "check")) {
		cli_fail("policy", "expected 'check FILE' (see --help)");
		return EXIT_USAGE;
	}
	if (argc != 3) {
		cli_fail("policy", "check takes one FILE");
		return EXIT_USAGE;
	}
	/* percentages are of this machine's memory */
	if (read_ipc_limits(&l, err, sizeof(err)))
		l.mem_total = 0;
	p = malloc(sizeof(*p));
	if (!p) {
		cli_fail("policy", "out of memory");
		return 1;
	}
	ret = policy_load(argv[2], l.mem_total, p, err, sizeof(err));
	if (ret) {
		fputs(err, stderr);
		free(p);
		return 1;
	}
	policy_describe(p, stdout);
	free(p);
	return 0;
}
