// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch top: a live view of every segment and semaphore of this IPC
 * namespace (with -A, of every IPC namespace on the host) against the
 * limits. The collector is attached before the
 * snapshot is read, so no change slips between them; events keep the
 * state current and periodic resyncs correct (and count) any drift.
 */
#include <argp.h>
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "commands.h"
#include "json_writer.h"
#include "ns_set.h"
#include "state.h"
#include "top_view.h"
#include "units.h"

struct top_args {
	struct collector_opts collect;
	bool batch;
	bool json;
	bool stats;
	bool all;		/* -A: every IPC namespace */
	uint64_t iterations;	/* 0: until quit */
	double delay_s;
	double resync_s;
	struct view_opts view;
};

enum { OPT_JSON = 0x100, OPT_MODE, OPT_RESYNC, OPT_STATS };

static const struct argp_option options[] = {
	{ "batch", 'b', NULL, 0, "Batch mode: print every refresh, no terminal UI", 0 },
	{ "all-namespaces", 'A', NULL, 0,
	  "Every IPC namespace on the host, each read in itself", 0 },
	{ "iterations", 'n', "COUNT", 0, "Exit after COUNT refreshes", 0 },
	{ "delay", 'd', "SECONDS", 0, "Time between refreshes (default 2)", 0 },
	{ "json", OPT_JSON, NULL, 0, "With -b: one JSON document per refresh", 0 },
	{ "owner", 'u', "UID", 0, "Only objects owned by this user id", 0 },
	{ "sort", 's', "COLUMN", 0,
	  "Sort segments by id, key, owner, cpid, command, size, "
	  "shmmax_share, nattch, status, age, attached or detached", 0 },
	{ "reverse", 'r', NULL, 0, "Reverse the sort order", 0 },
	{ "resync", OPT_RESYNC, "SECONDS", 0,
	  "Re-read the kernel's tables this often (default 10)", 0 },
	{ "mode", OPT_MODE, "MODE", 0, "tracepoint, fentry, kprobe or auto", 0 },
	{ "stats", OPT_STATS, NULL, 0,
	  "Print the CPU time of every refresh on stderr", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output on stderr", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = cli_error_stream();
		break;
	case 'b':
		a->batch = true;
		break;
	case 'A':
		a->all = true;
		break;
	case 'n':
		a->iterations = cli_number(state, "count", arg, 1, UINT32_MAX);
		break;
	case 'd':
		a->delay_s = cli_seconds(state, "delay", arg);
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case 'u':
		a->view.owner = cli_number(state, "UID", arg, 0, UINT32_MAX - 1);
		a->view.filter_owner = true;
		break;
	case 's':
		if (parse_seg_column(arg, &a->view.sort))
			argp_error(state, "invalid sort column '%s'", arg);
		break;
	case 'r':
		a->view.reverse = true;
		break;
	case OPT_RESYNC:
		a->resync_s = cli_seconds(state, "resync interval", arg);
		break;
	case OPT_MODE:
		cli_mode(state, arg, &a->collect.mode);
		break;
	case OPT_STATS:
		a->stats = true;
		break;
	case 'v':
		a->collect.verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->json && !a->batch)
			argp_error(state, "--json needs -b (batch mode)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"A live view of the System V shared memory segments, semaphores and\n"
	"message queues of this IPC namespace (with -A, of every one on the\n"
	"host) against the limits: who created what, who is attached, what is\n"
	"orphaned, who sleeps on which semaphore.\n\n"
	"Keys: s segments, m semaphores, e recent refusals and destructions,\n"
	"< > sort column, r reverse, u owner filter, p pause, h help, q quit.",
	NULL, NULL, NULL,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(const struct ipcw_event *e, void *ctx)
{
	struct ipc_state *st = ns_state(ctx, e->ipcns);

	/* a namespace not adopted yet is read whole when it is */
	if (st)
		state_apply(st, e);
	return 0;
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
	       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

/* ---- batch output -------------------------------------------------------- */

static void print_line(void *ctx, const char *line, bool highlight)
{
	(void)ctx;
	(void)highlight;
	puts(line);
}

static void gone_text(const struct gone_ns *g, char *line, size_t len)
{
	char bytes[UNITS_BUF];

	snprintf(line, len,
		 "IPC namespace %u%s%s%s gone: freed %llu segments (%s), %llu "
		 "semaphore sets, %llu message queues", g->ipcns,
		 g->owner[0] ? " (" : "", g->owner, g->owner[0] ? ")" : "",
		 (unsigned long long)g->segments,
		 fmt_bytes(bytes, sizeof(bytes), g->bytes),
		 (unsigned long long)g->sem_sets,
		 (unsigned long long)g->msg_queues);
}

static void view_gone(const struct ns_set *set, line_fn emit, void *ctx)
{
	char line[512];
	size_t i;

	emit(ctx, "IPC NAMESPACES GONE WHILE WATCHED", true);
	for (i = set->ngone; i-- > 0;) {
		gone_text(&set->gone[i], line, sizeof(line));
		emit(ctx, line, false);
	}
}

static void gone_json(struct json_writer *jw, const struct ns_set *set)
{
	size_t i;

	jw_name(jw, "gone");
	jw_start_array(jw);
	for (i = set->ngone; i-- > 0;) {
		const struct gone_ns *g = &set->gone[i];

		jw_start_object(jw);
		jw_kv_uint(jw, "ipcns", g->ipcns);
		jw_kv_string(jw, "owner", g->owner);
		jw_kv_uint(jw, "segments", g->segments);
		jw_kv_uint(jw, "bytes", g->bytes);
		jw_kv_uint(jw, "sem_sets", g->sem_sets);
		jw_kv_uint(jw, "msg_queues", g->msg_queues);
		jw_kv_int(jw, "time", g->at);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void print_batch(const struct ns_set *set, const struct top_args *a,
			struct json_writer *jw)
{
	size_t i;

	if (jw && !set->all) {
		view_json(jw, set->st[0], &a->view);
		return;
	}
	if (jw) {
		jw_start_object(jw);
		jw_kv_string(jw, "type", "top_all");
		jw_kv_int(jw, "time_ns",
			  (int64_t)a->view.now_ns + a->view.mono_to_real_ns);
		jw_kv_string(jw, "mode", a->view.mode);
		jw_kv_uint(jw, "count", set->n);
		jw_kv_uint(jw, "lost", set->lost);
		jw_name(jw, "namespaces");
		jw_start_array(jw);
		for (i = 0; i < set->n; i++)
			view_json(jw, set->st[i], &a->view);
		jw_end_array(jw);
		gone_json(jw, set);
		jw_end_object(jw);
		return;
	}
	for (i = 0; i < set->n; i++) {
		const struct ipc_state *st = set->st[i];

		view_header(st, &a->view, print_line, NULL);
		putchar('\n');
		view_segments(st, &a->view, print_line, NULL);
		putchar('\n');
		view_semaphores(st, &a->view, print_line, NULL);
		putchar('\n');
		view_messages(st, &a->view, print_line, NULL);
		putchar('\n');
		view_recent(st, &a->view, print_line, NULL);
		putchar('\n');
	}
	if (set->all && set->ngone) {
		view_gone(set, print_line, NULL);
		putchar('\n');
	}
	fflush(stdout);
}

/* ---- the terminal UI --------------------------------------------------- */

struct screen {
	enum top_screen which;
	bool paused;
	bool help;
	int row;
};

static void screen_line(void *ctx, const char *line, bool highlight)
{
	struct screen *s = ctx;

	if (s->row >= LINES - 1)
		return;
	if (highlight)
		attron(A_BOLD);
	mvaddnstr(s->row++, 0, line, COLS);
	if (highlight)
		attroff(A_BOLD);
}

static const char *const help_text[] = {
	"ipcwatch top - keys",
	"",
	"  s        segments: id, key, owner, creator, size, attaches, status",
	"  m        semaphores: values, GETNCNT/GETZCNT, who waits on what;",
	"           message queues",
	"  e        recent refusals and destructions",
	"  < >      sort segments by the previous / next column",
	"  r        reverse the sort order",
	"  u        show one owner only (empty: everyone)",
	"  p SPACE  pause the display (events are still counted)",
	"  h ?      this help; any key returns",
	"  q        quit",
	"",
	"Status: dest = removed, freed at the last detach; locked = SHM_LOCK;",
	"orphaned = creator gone and nothing attached (the OOM killer cannot",
	"free it).",
	NULL,
};

static void draw(const struct ns_set *set, struct top_args *a,
		 struct screen *s)
{
	size_t k;
	static const char *const names[] = { "segments", "semaphores",
					     "recent" };
	char status[256];
	int i;

	erase();
	s->row = 0;
	if (s->help) {
		for (i = 0; help_text[i]; i++)
			screen_line(s, help_text[i], i == 0);
		refresh();
		return;
	}
	for (k = 0; k < set->n; k++) {
		const struct ipc_state *st = set->st[k];

		view_header(st, &a->view, screen_line, s);
		s->row++;
		if (s->which == SCREEN_SEGMENTS) {
			view_segments(st, &a->view, screen_line, s);
		} else if (s->which == SCREEN_SEMAPHORES) {
			view_semaphores(st, &a->view, screen_line, s);
			s->row++;
			view_messages(st, &a->view, screen_line, s);
		} else {
			view_recent(st, &a->view, screen_line, s);
		}
		s->row++;
	}
	if (set->all && set->ngone && s->which == SCREEN_RECENT)
		view_gone(set, screen_line, s);
	snprintf(status, sizeof(status),
		 "[%s] sort: %s%s%s   s m e: screens  < >: sort  r  u: owner  "
		 "p: pause  h: help  q: quit", names[s->which],
		 seg_column_name(a->view.sort), a->view.reverse ? " (rev)" : "",
		 s->paused ? "   PAUSED" : "");
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, status, COLS);
	attroff(A_REVERSE);
	refresh();
}

static void ask_owner(struct top_args *a)
{
	char buf[32];
	char *end;
	unsigned long v;

	mvaddstr(LINES - 1, 0, "owner uid (empty: everyone): ");
	clrtoeol();
	echo();
	nocbreak();
	cbreak();
	timeout(-1);
	getnstr(buf, sizeof(buf) - 1);
	noecho();
	timeout(0);
	if (!buf[0]) {
		a->view.filter_owner = false;
		return;
	}
	v = strtoul(buf, &end, 10);
	if (!*end && v < UINT32_MAX) {
		a->view.filter_owner = true;
		a->view.owner = (uint32_t)v;
	}
}

/* One key: true when the screen must be redrawn now. */
static bool handle_key(int ch, struct top_args *a, struct screen *s)
{
	if (s->help && ch != ERR && ch != KEY_RESIZE) {
		s->help = false;
		return true;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		stop = 1;
		return false;
	case 's':
		s->which = SCREEN_SEGMENTS;
		return true;
	case 'm':
		s->which = SCREEN_SEMAPHORES;
		return true;
	case 'e':
		s->which = SCREEN_RECENT;
		return true;
	case '>':
		a->view.sort = (a->view.sort + 1) % COL_MAX;
		return true;
	case '<':
		a->view.sort = (a->view.sort + COL_MAX - 1) % COL_MAX;
		return true;
	case 'r':
		a->view.reverse = !a->view.reverse;
		return true;
	case 'u':
		ask_owner(a);
		return true;
	case 'p':
	case ' ':
		s->paused = !s->paused;
		return true;
	case 'h':
	case '?':
		s->help = true;
		return true;
	case KEY_RESIZE:
		return true;
	default:
		return false;
	}
}

/* ---- the loop ------------------------------------------------------------ */

static int refresh_state(struct ns_set *set, struct collector *c,
			 const struct top_args *a, uint64_t *next_resync)
{
	bool resync = mono_ns() >= *next_resync;
	char err[256];
	size_t i;
	int ret;

	/* apply what is queued first, so a resync finds no false drift */
	collector_poll(c, 0);
	set->lost = collector_lost(c);
	if (set->all && (ret = ns_sync(set, err, sizeof(err)))) {
		cli_fail("top", "%s", err);
		return ret;
	}
	/* one helper for every other namespace, not one each (a resync
	 * reads more, each alone) */
	if (set->all && !resync)
		state_prefetch(set->st, set->n);
	for (i = set->n; i-- > 0;) {
		struct ipc_state *st = set->st[i];

		st->lost = set->lost;
		ret = resync ? state_resync(st, err, sizeof(err)) : 0;
		if (!ret)
			ret = state_refresh(st, err, sizeof(err));
		/* gone since it was found: reported so */
		if (ret == -ESRCH && set->all) {
			ns_gone(set, i);
			continue;
		}
		if (ret) {
			cli_fail("top", "%s", err);
			return ret;
		}
	}
	if (resync)
		*next_resync = mono_ns() + (uint64_t)(a->resync_s * 1e9);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = { .delay_s = 2, .resync_s = 10,
			      .view.sort = COL_ID };
	struct sigaction sa = { .sa_handler = on_signal };
	struct screen scr = { .which = SCREEN_SEGMENTS };
	struct json_writer *jw = NULL;
	struct ns_set set = { 0 };
	struct ipc_state *own = NULL;
	struct collector *c;
	uint64_t next_refresh, next_resync, done = 0;
	char err[256];
	int ret = 0;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.batch && !isatty(STDIN_FILENO)) {
		cli_fail("top", "standard input is not a terminal: use -b");
		return EXIT_USAGE;
	}
	set.all = a.all;
	if (!a.all) {
		if (ns_set_own(&set)) {
			cli_fail("top", "out of memory");
			return 1;
		}
		own = set.st[0];
		/* only this namespace: the tables show no other */
		a.collect.ipcns = own->ipcns;
	}
	c = collector_open(&a.collect, on_event, &set, err, sizeof(err));
	if (!c) {
		cli_fail("top", "%s", err);
		ns_set_free(&set);
		return 1;
	}
	/* attached first: no change slips between the events and the read */
	if (a.all ? ns_sync(&set, err, sizeof(err)) :
		    state_snapshot(own, err, sizeof(err))) {
		cli_fail("top", "%s", err);
		collector_close(c);
		ns_set_free(&set);
		return 1;
	}
	/* at start, a namespace that cannot be read is an error: later
	 * ones are tried again at every refresh */
	if (set.failed) {
		cli_fail("top", "%s%s", set.failed_err,
			 set.failed > 1 ? " (and more namespaces)" : "");
		collector_close(c);
		ns_set_free(&set);
		return 1;
	}
	set.ngone = 0;
	a.view.mode = mode_name(collector_mode(c));
	a.view.interval_s = a.delay_s;
	a.view.mono_to_real_ns = mono_to_real_ns();
	next_resync = mono_ns() + (uint64_t)(a.resync_s * 1e9);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (a.json)
		jw = jw_new(stdout);
	if (a.batch) {
		fprintf(stderr, "ipcwatch top: watching in %s mode\n",
			a.view.mode);
	} else {
		initscr();
		cbreak();
		noecho();
		keypad(stdscr, TRUE);
		curs_set(0);
		timeout(0);
	}
	/* the first refresh comes at once, the others every delay */
	next_refresh = mono_ns();
	while (!stop) {
		uint64_t now = mono_ns();
		double cpu = 0;
		bool redraw = false;
		int ch;

		if (now < next_refresh) {
			uint64_t wait_ms = (next_refresh - now) / 1000000;

			ret = collector_poll(c, wait_ms > 100 ? 100 :
						(int)wait_ms + 1);
			if (ret < 0) {
				cli_fail("top", "reading events: %s",
					 strerror(-ret));
				break;
			}
			ret = 0;
			while (!a.batch && (ch = getch()) != ERR)
				redraw |= handle_key(ch, &a, &scr);
			if (redraw && !stop) {
				a.view.now_ns = mono_ns();
				a.view.now_s = time(NULL);
				/* a full repaint: the screen changed as a whole */
				clearok(curscr, TRUE);
				draw(&set, &a, &scr);
			}
			continue;
		}
		if (a.stats)
			cpu = cpu_ms();
		ret = refresh_state(&set, c, &a, &next_resync);
		if (ret)
			break;
		a.view.now_ns = mono_ns();
		a.view.now_s = time(NULL);
		if (a.batch)
			print_batch(&set, &a, jw);
		else if (!scr.paused)
			draw(&set, &a, &scr);
		if (a.stats) {
			size_t segs = 0, sets = 0, k;

			for (k = 0; k < set.n; k++) {
				segs += set.st[k]->nsegs;
				sets += set.st[k]->nsets;
			}
			fprintf(stderr,
				"ipcwatch top: refresh %llu: %.3f ms CPU, %zu "
				"segments, %zu semaphore sets, %zu IPC "
				"namespace%s\n",
				(unsigned long long)done + 1, cpu_ms() - cpu,
				segs, sets, set.n, set.n == 1 ? "" : "s");
		}
		for (size_t k = 0; k < set.n; k++)
			state_interval_reset(set.st[k]);
		next_refresh = mono_ns() + (uint64_t)(a.delay_s * 1e9);
		if (a.iterations && ++done >= a.iterations)
			break;
	}
	if (!a.batch)
		endwin();
	collector_close(c);
	jw_destroy(jw);
	ns_set_free(&set);
	return ret ? 1 : 0;
}
