/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands; main.c dispatches to them by name. */
#ifndef IPCWATCH_COMMANDS_H
#define IPCWATCH_COMMANDS_H

/* Each takes argv with argv[0] = "ipcwatch <command>"; returns the
 * exit status. */
int cmd_events(int argc, char **argv);
int cmd_limits(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_enforce(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
