// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch probe: what this kernel offers ipcwatch, in the spirit of
 * `bpftool feature probe`: BTF, privileges, the ring buffer, the BPF
 * LSM, the ipc tracepoints and every hook of every mode. Exits 0 when
 * everything the mode asked for (and enforce, with --enforce) needs is
 * there, 1 when not.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "collector.h"
#include "commands.h"
#include "event.h"
#include "hooks.h"
#include "json_writer.h"
#include "policy_bpf.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

struct probe_args {
	enum ipcw_mode mode;
	bool enforce;
	bool json;
	bool verbose;
};

enum { OPT_JSON = 0x100, OPT_MODE, OPT_ENFORCE };

static const struct argp_option options[] = {
	{ "mode", OPT_MODE, "MODE", 0,
	  "The mode to judge: tracepoint, fentry, kprobe or auto (default)", 0 },
	{ "enforce", OPT_ENFORCE, NULL, 0,
	  "Also judge enforce: its hooks, and a test refusal that proves the "
	  "BPF LSM enforces", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output on stderr", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct probe_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = cli_error_stream();
		break;
	case OPT_MODE:
		cli_mode(state, arg, &a->mode);
		break;
	case OPT_ENFORCE:
		a->enforce = true;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"Tell what this kernel offers ipcwatch: BTF, privileges, the ring\n"
	"buffer, the BPF LSM, the ipc tracepoints, and each kernel function\n"
	"the fentry mode hooks. Exit status 0 when the mode asked for (and\n"
	"enforce, with --enforce) has everything it needs.",
	NULL, NULL, NULL,
};

struct probe {
	struct utsname uts;
	bool btf;
	struct hook_state *st;
	bool caps_read, cap_bpf, cap_perfmon, cap_sys_admin;
	int ringbuf;		/* 1 yes, 0 no, <0 -errno */
	int trampolines;	/* 1 yes, 0 no, <0 -errno: cannot tell */
	int lsm;		/* 1 listed, 0 not, -1 no securityfs */
	char lsm_list[256];
	enum ipcw_mode chosen;	/* what auto picks; AUTO if nothing */
	bool enforce_ok;
	char enforce_why[512];
};

static const enum ipcw_mode modes[] = { IPCW_MODE_TRACEPOINT,
					IPCW_MODE_FENTRY, IPCW_MODE_KPROBE };
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static bool privileged(const struct probe *p)
{
	return p->cap_sys_admin || (p->cap_bpf && p->cap_perfmon);
}

static void read_caps(struct probe *p)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return;
	p->caps_read = true;
#define HAS(cap) (!!(data[(cap) / 32].effective & (1u << ((cap) % 32))))
	p->cap_bpf = HAS(CAP_BPF);
	p->cap_perfmon = HAS(CAP_PERFMON);
	p->cap_sys_admin = HAS(CAP_SYS_ADMIN);
#undef HAS
}

static int read_lsm(char *list, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "r");
	char copy[256], *tok, *save = NULL;

	list[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(list, (int)len, f))
		list[0] = '\0';
	fclose(f);
	list[strcspn(list, "\n")] = '\0';
	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return 1;
	return 0;
}

/* Whether every hook of a mode (events and details) is usable. */
static bool mode_complete(enum ipcw_mode mode, const struct hook_state *st)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hook_in_mode(&hooks[i], mode) && !hook_state_fine(&st[i]))
			return false;
	return hooks_events(mode, st) != 0;
}

static const char *set_name(enum hook_set set)
{
	static const char *const names[] = { "tracepoint", "fentry", "kprobe",
					     "both", "enforce" };

	return set <= HOOKS_POLICY ? names[set] : "?";
}

/* Hooks are listed once per kind, target and set. */
static bool listed_before(size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (hooks[j].kind == hooks[i].kind &&
		    hooks[j].set == hooks[i].set &&
		    !strcmp(hooks[j].target, hooks[i].target))
			return true;
	return false;
}

static void events_text(uint32_t events, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t t;
	int n;

	buf[0] = '\0';
	for (t = 1; t < IPCW_TYPE_MAX && used < len; t++)
		if (events & (1u << t)) {
			n = snprintf(buf + used, len - used, "%s%s",
				     used ? " " : "", event_type_name(t));
			if (n > 0)
				used += (size_t)n;
		}
}

static void print_text(const struct probe *p)
{
	char why[128], list[256], line[1024];
	size_t i, m;

	printf("%-16s %s %s\n", "kernel", p->uts.release, p->uts.machine);
	printf("%-16s %-10s %s\n", "btf", p->btf ? "yes" : "no",
	       p->btf ? "/sys/kernel/btf/vmlinux" :
		      "CONFIG_DEBUG_INFO_BTF=y is needed");
	printf("%-16s %-10s %s%s%s\n", "privileges",
	       privileged(p) ? "yes" : "no",
	       p->cap_bpf ? "CAP_BPF " : "", p->cap_perfmon ? "CAP_PERFMON " : "",
	       p->cap_sys_admin ? "CAP_SYS_ADMIN" : "");
	printf("%-16s %s%s%s\n", "ring buffer",
	       p->ringbuf > 0 ? "yes" : p->ringbuf == 0 ? "no" : "unknown",
	       p->ringbuf < 0 ? "       " : "",
	       p->ringbuf < 0 ? strerror(-p->ringbuf) : "");
	printf("%-16s %s%s%s\n", "trampolines",
	       p->trampolines > 0 ? "yes" : p->trampolines == 0 ? "no" :
	       "unknown", p->trampolines == 0 ?
	       "         fentry, fexit and LSM programs cannot attach" : "",
	       p->trampolines < 0 ? "    could not be tried" : "");
	printf("%-16s %-10s %s\n", "bpf lsm",
	       p->lsm > 0 ? "listed" : p->lsm == 0 ? "inactive" : "unknown",
	       p->lsm >= 0 ? p->lsm_list : "no /sys/kernel/security/lsm");
	printf("%-16s %s\n", "ipc tracepoints",
	       p->st && hooks_have_tracepoints(p->st) ? "yes" :
	       "no (kernel-patches/ adds them)");
	if (!p->st)
		return;

	printf("\n%-28s %-10s %-10s %s\n", "HOOK", "KIND", "USED BY",
	       "STATUS");
	for (i = 0; i < nhooks; i++)
		if (!listed_before(i))
			printf("%-28s %-10s %-10s %s\n", p->st[i].target,
			       hook_kind_name(hooks[i].kind),
			       set_name(hooks[i].set),
			       hook_status_text(&p->st[i], why, sizeof(why)));
	printf("\n");
	for (m = 0; m < NMODES; m++) {
		uint32_t ev = hooks_events(modes[m], p->st);

		events_text(ev, list, sizeof(list));
		printf("mode %-10s %s%s\n", mode_name(modes[m]),
		       ev ? "events: " : "unusable", list);
		if (ev && hooks_unavailable_line(modes[m], p->st, line,
						 sizeof(line)))
			printf("%-15s unavailable: %s\n", "", line);
	}
	printf("auto picks       %s\n", p->chosen == IPCW_MODE_AUTO ? "nothing" :
	       mode_name(p->chosen));
	if (p->enforce_ok || p->enforce_why[0])
		printf("enforce          %s%s\n", p->enforce_ok ? "ready" :
		       "not ready: ", p->enforce_why);
}

static void print_json(const struct probe *p, bool ready)
{
	struct json_writer *jw = jw_new(stdout);
	char why[128];
	uint32_t t, ev;
	size_t i, m;

	if (!jw)
		return;
	jw_start_object(jw);
	jw_kv_string(jw, "kernel", p->uts.release);
	jw_kv_string(jw, "machine", p->uts.machine);
	jw_kv_bool(jw, "btf", p->btf);
	jw_kv_bool(jw, "privileged", privileged(p));
	jw_name(jw, "capabilities");
	jw_start_array(jw);
	if (p->cap_bpf)
		jw_string(jw, "CAP_BPF");
	if (p->cap_perfmon)
		jw_string(jw, "CAP_PERFMON");
	if (p->cap_sys_admin)
		jw_string(jw, "CAP_SYS_ADMIN");
	jw_end_array(jw);
	jw_name(jw, "ringbuf");
	if (p->ringbuf < 0)
		jw_null(jw);
	else
		jw_bool(jw, p->ringbuf > 0);
	jw_name(jw, "trampolines");
	if (p->trampolines < 0)
		jw_null(jw);
	else
		jw_bool(jw, p->trampolines > 0);
	jw_kv_string(jw, "bpf_lsm", p->lsm > 0 ? "listed" :
		     p->lsm == 0 ? "inactive" : "unknown");
	if (p->lsm >= 0)
		jw_kv_string(jw, "lsm", p->lsm_list);
	jw_kv_bool(jw, "tracepoints", p->st && hooks_have_tracepoints(p->st));
	if (p->st) {
		jw_name(jw, "hooks");
		jw_start_array(jw);
		for (i = 0; i < nhooks; i++) {
			if (listed_before(i))
				continue;
			jw_start_object(jw);
			jw_kv_string(jw, "target", p->st[i].target);
			jw_kv_string(jw, "kind", hook_kind_name(hooks[i].kind));
			jw_kv_string(jw, "used_by", set_name(hooks[i].set));
			jw_kv_bool(jw, "ok", hook_state_fine(&p->st[i]));
			jw_kv_string(jw, "status",
				     hook_status_text(&p->st[i], why,
						      sizeof(why)));
			jw_end_object(jw);
		}
		jw_end_array(jw);
		jw_name(jw, "modes");
		jw_start_object(jw);
		for (m = 0; m < NMODES; m++) {
			ev = hooks_events(modes[m], p->st);
			jw_name(jw, mode_name(modes[m]));
			jw_start_object(jw);
			jw_kv_bool(jw, "usable", ev != 0);
			jw_kv_bool(jw, "complete",
				   mode_complete(modes[m], p->st));
			jw_name(jw, "events");
			jw_start_array(jw);
			for (t = 1; t < IPCW_TYPE_MAX; t++)
				if (ev & (1u << t))
					jw_string(jw, event_type_name(t));
			jw_end_array(jw);
			jw_name(jw, "unavailable");
			hooks_unavailable_json(jw, modes[m], p->st);
			jw_end_object(jw);
		}
		jw_end_object(jw);
	}
	jw_name(jw, "auto");
	if (p->chosen == IPCW_MODE_AUTO)
		jw_null(jw);
	else
		jw_string(jw, mode_name(p->chosen));
	if (p->enforce_ok || p->enforce_why[0]) {
		jw_name(jw, "enforce");
		jw_start_object(jw);
		jw_kv_bool(jw, "ready", p->enforce_ok);
		if (!p->enforce_ok)
			jw_kv_string(jw, "why", p->enforce_why);
		jw_end_object(jw);
	}
	jw_kv_bool(jw, "ready", ready);
	jw_end_object(jw);
	jw_destroy(jw);
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	struct probe p = { 0 };
	enum ipcw_mode want;
	struct btf *btf;
	bool ready;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.verbose)
		libbpf_set_print(quiet_print);

	uname(&p.uts);
	btf = btf__load_vmlinux_btf();
	p.btf = btf != NULL;
	p.st = calloc(nhooks, sizeof(*p.st));
	if (!p.st) {
		cli_fail("probe", "out of memory");
		btf__free(btf);
		return 1;
	}
	hooks_probe(btf, "/proc/kallsyms", p.st);
	btf__free(btf);
	read_caps(&p);
	p.ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	p.lsm = read_lsm(p.lsm_list, sizeof(p.lsm_list));
	p.trampolines = p.btf && privileged(&p) ?
			collector_probe_trampolines(p.st, a.verbose) : -EPERM;
	/* as collector_open() chooses */
	p.chosen = hooks_have_tracepoints(p.st) ? IPCW_MODE_TRACEPOINT :
		   hooks_events(IPCW_MODE_FENTRY, p.st) && p.trampolines != 0 ?
		   IPCW_MODE_FENTRY :
		   hooks_events(IPCW_MODE_KPROBE, p.st) ? IPCW_MODE_KPROBE :
							  IPCW_MODE_AUTO;
	if (a.enforce)
		p.enforce_ok = !p.btf || !privileged(&p) ? false :
			       !enforcer_probe(a.verbose, p.enforce_why,
					       sizeof(p.enforce_why));
	if (a.enforce && !p.enforce_ok && !p.enforce_why[0])
		snprintf(p.enforce_why, sizeof(p.enforce_why), "%s",
			 !p.btf ? "no BTF" : "not privileged");

	want = a.mode == IPCW_MODE_AUTO ? p.chosen : a.mode;
	ready = p.btf && privileged(&p) && p.ringbuf > 0 &&
		mode_complete(want, p.st) &&
		(want != IPCW_MODE_FENTRY || p.trampolines > 0) &&
		(!a.enforce || p.enforce_ok);
	if (a.json)
		print_json(&p, ready);
	else
		print_text(&p);
	free(p.st);
	return ready ? 0 : 1;
}
