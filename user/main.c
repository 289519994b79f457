// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch: observability and policy for System V shared memory and
 * semaphores. main() only dispatches; each subcommand owns its options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"


struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *summary;
};

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "events", cmd_events,
	  "live System V shm and semaphore events, refusals explained" },
	{ "top", cmd_top,
	  "live view of every segment and semaphore against the limits" },
	{ "policy", cmd_policy, "check a policy file: policy check FILE" },
	{ "enforce", cmd_enforce,
	  "daemon: quotas in the kernel, orphan reaping, alerts, metrics" },
	{ "limits", cmd_limits,
	  "limits of this IPC namespace, use against each, hazards" },
	{ "probe", cmd_probe,
	  "what this kernel offers: BTF, LSM, tracepoints, each hook" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "this list" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: ipcwatch COMMAND [OPTION...]\n\nCommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n'ipcwatch COMMAND --help' lists a command's options;"
		" see ipcwatch(8).\n");
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		cli_fail("version", "takes no arguments");
		return EXIT_USAGE;
	}
	printf("ipcwatch %s\n", IPCWATCH_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;
	char name[64];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(1, argv + 1);
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		fprintf(stderr,
			"ipcwatch: unknown command '%s' (try 'ipcwatch help')\n",
			argv[1]);
		return EXIT_USAGE;
	}
	/* argp names the program after argv[0]: "ipcwatch events" */
	snprintf(name, sizeof(name), "ipcwatch %s", cmd->name);
	argv[1] = name;
	return cmd->func(argc - 1, argv + 1);
}
