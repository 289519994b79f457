/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy programs' maps and links pinned in bpffs, so quotas stay
 * in force when the daemon dies: DIR/maps/NAME and DIR/links/PROG, the
 * map pin_info last (it says the pins are whole). A restarted daemon of
 * the same build adopts them; `ipcwatch enforce --stop` removes them.
 */
#ifndef IPCWATCH_POLICY_PINS_H
#define IPCWATCH_POLICY_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipcwatch_policy.h"

#define PINS_DEFAULT_DIR "/sys/fs/bpf/ipcwatch"
/* The LSM program's link: attached last, detached first. */
#define PINS_CHECK_LINK "policy_shm_alloc"

struct bpf_object_skeleton;

enum pins_state {
	PINS_NONE,	/* nothing pinned: a fresh start */
	PINS_HELD,	/* a live daemon holds them */
	PINS_ORPHANED,	/* whole, no daemon: to adopt */
	PINS_UNFINISHED,	/* left by a daemon that died during its start
				 * (incomplete, or never marked ready): to
				 * remove, the caller holding pins_lock() */
};

/*
 * What @dir holds: 0 with @state and @info, or -errno with @err when it
 * cannot be used (not on bpffs, another build's programs). Call it
 * holding pins_lock(): only then is an incomplete directory unfinished
 * and not another start in progress.
 */
int pins_find(const char *dir, uint64_t build, enum pins_state *state,
	      struct ipcw_pin_info *info, char *err, size_t errlen);

/* pin_info of @dir, whatever build wrote it: 0 or -errno. */
int pins_read_info(const char *dir, struct ipcw_pin_info *info);

/* Whether the daemon named in @info still runs. */
bool pins_holder_alive(const struct ipcw_pin_info *info);

/* Before load: reuse the pinned maps of @dir (adoption). */
int pins_reuse_maps(const char *dir, struct bpf_object_skeleton *s,
		    char *err, size_t errlen);

/* After load, instead of attaching: hold the pinned links of @dir. */
int pins_open_links(const char *dir, struct bpf_object_skeleton *s,
		    char *err, size_t errlen);

/* After the proof: pin every map and link of @s in @dir, all or none. */
int pins_save(const char *dir, struct bpf_object_skeleton *s, char *err,
	      size_t errlen);

/*
 * Say that this process holds the pins (written into pin_info); pins
 * already marked ready stay so.
 */
int pins_claim(int info_fd, uint64_t build, uint32_t max_owners);

/*
 * Mark the pins whole and seeded, with how many existing segments could
 * not be charged: only ready pins are adopted.
 */
int pins_mark_ready(int info_fd, uint32_t unseeded);

/*
 * Serialise the daemons and --stop on @dir: an exclusive flock on the
 * directory that holds it, so two starts cannot both pin, or one
 * remove what the other pinned. The fd to close, or -errno.
 */
int pins_lock(const char *dir);

/* Remove everything in @dir and @dir itself: 0 or -errno. */
int pins_remove(const char *dir);

/* A process's start time (/proc/PID/stat field 22), 0 if gone. */
uint64_t pins_process_start(pid_t pid);

/* FNV-1a of the programs' object: which build pinned them. */
uint64_t pins_build_id(const void *elf, size_t size);

#endif
