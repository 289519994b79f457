// SPDX-License-Identifier: GPL-2.0
/*
 * The policy parser against a corpus: every file in tests/policy/bad
 * names the exact errors it must give ("; expect: FILE:line: ..."),
 * every file in tests/policy/good must load and mean what its
 * "; means: " lines say, in the words of `ipcwatch policy check`.
 */
#define _GNU_SOURCE
#include "unit.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

#define CORPUS FIXTURES "/../../policy"
#define EXAMPLE FIXTURES "/../../../docs/policy.example.ini"
#define MEM_TOTAL (8ULL << 30)

static struct policy pol;

/* The "; expect:" lines of a file, FILE replaced by its path. */
static void expected_errors(const char *path, char *out, size_t len)
{
	char line[512], *at;
	FILE *f = fopen(path, "r");
	size_t used = 0;

	out[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "; expect: ", 10))
			continue;
		at = strstr(line, "FILE");
		if (!at)
			fail_msg("%s: an expect line without FILE: %s", path,
				 line);
		used += snprintf(out + used, len - used, "%.*s%s%s",
				 (int)(at - line - 10), line + 10, path,
				 at + 4);
	}
	fclose(f);
}

static void bad_file(void **state)
{
	const char *path = *state;
	char want[2048], got[2048];

	expected_errors(path, want, sizeof(want));
	assert_true(want[0]);
	assert_int_equal(policy_load(path, MEM_TOTAL, &pol, got, sizeof(got)),
			 -1);
	assert_string_equal(got, want);
}

/*
 * What a good file means, in the words `ipcwatch policy check` prints:
 * its "; means: " lines, FILE replaced by its path ("; means:" alone is
 * an empty line).
 */
static void expected_meaning(const char *path, char *out, size_t len)
{
	char line[512], *text, *at;
	FILE *f = fopen(path, "r");
	size_t used = 0;

	out[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "; means:", 8))
			continue;
		text = line + 8 + (line[8] == ' ');
		at = strstr(text, "FILE");
		if (at)
			used += snprintf(out + used, len - used, "%.*s%s%s",
					 (int)(at - text), text, path, at + 4);
		else
			used += snprintf(out + used, len - used, "%s", text);
	}
	fclose(f);
}

static void good_file(void **state)
{
	char err[2048], want[4096], *got = NULL;
	size_t len = 0;
	FILE *f;

	err[0] = '\0';
	if (policy_load(*state, MEM_TOTAL, &pol, err, sizeof(err)))
		fail_msg("%s", err);
	expected_meaning(*state, want, sizeof(want));
	assert_true(want[0]);
	f = open_memstream(&got, &len);
	assert_non_null(f);
	policy_describe(&pol, f);
	fclose(f);
	assert_string_equal(got, want);
	free(got);
}

static void example_file(void **state)
{
	char err[2048];

	err[0] = '\0';
	if (policy_load(*state, MEM_TOTAL, &pol, err, sizeof(err)))
		fail_msg("%s", err);
}

/* A corpus directory without a single .ini file tests nothing. */
static void corpus_dir_empty(void **state)
{
	fail_msg("no .ini file in %s", (const char *)*state);
}

static void policy_example_resolves(void **state)
{
	char err[2048];
	const struct policy_rule *r;

	(void)state;
	assert_int_equal(policy_load(EXAMPLE, MEM_TOTAL,
				     &pol, err, sizeof(err)), 0);
	assert_int_equal(pol.mode, POLICY_AUDIT);
	assert_int_equal(pol.guard_rmid, GUARD_DENY);
	assert_int_equal(pol.nrules, 3);
	r = &pol.rules[0];
	assert_string_equal(r->name, "postgres");
	assert_true(r->match_uid && r->uid == 999);
	assert_int_equal(r->mode, POLICY_ENFORCE);
	assert_int_equal(r->max_segment_bytes.bytes, 16ULL << 30);
	/* 50% of 8 GiB */
	assert_int_equal(r->max_total_bytes.bytes, 4ULL << 30);
	assert_true(r->max_total_bytes.percent);
	r = &pol.rules[1];
	assert_int_equal(r->mode, POLICY_AUDIT);	/* the [policy] default */
	assert_int_equal(r->max_segments, 64);
	assert_int_equal(r->scope, SCOPE_GID);
	r = &pol.rules[2];
	assert_true(r->rmid_forced);
	assert_int_equal(r->rmid_grace_s, 300);
	assert_int_equal(r->alert_owner_bytes.bytes, 2ULL << 30);
}

static void policy_first_match_wins(void **state)
{
	char err[2048];

	(void)state;
	assert_int_equal(policy_load(EXAMPLE, MEM_TOTAL,
				     &pol, err, sizeof(err)), 0);
	assert_int_equal(policy_match(&pol, 999, 50, "", 1), 0);
	assert_int_equal(policy_match(&pol, 1000, 1001, "", 1), 1);
	/* the catch-all is last: everyone else */
	assert_int_equal(policy_match(&pol, 1000, 50, "", 1), 2);
	assert_int_equal(policy_match(&pol, 0, 0, "/x", 7), 2);
}

/* Totals are kept only where a rule counts: max_total_bytes, max_segments. */
static void policy_total_scopes_counted(void **state)
{
	static char text[] = "[rule a]\nuid = 1\nmax_segments = 2\n"
			     "[rule b]\naccount = gid\nalert_owner_bytes = 1M\n"
			     "[rule c]\naccount = gid\nmax_segment_bytes = 1M\n"
			     "[rule d]\naccount = ipcns\nmax_total_bytes = 1G\n";
	char err[2048];
	FILE *f = fmemopen(text, strlen(text), "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(policy_load_file(f, "mem.ini", MEM_TOTAL, &pol, err,
					  sizeof(err)), 0);
	fclose(f);
	assert_int_equal(policy_total_scopes(&pol),
			 1U << SCOPE_UID | 1U << SCOPE_IPCNS);
}

/* Ids follow names, not places: a reload that moves a rule keeps it. */
static void policy_rule_ids_by_name(void **state)
{
	char err[2048];
	uint32_t id;

	(void)state;
	assert_int_equal(policy_load(EXAMPLE, MEM_TOTAL,
				     &pol, err, sizeof(err)), 0);
	/* FNV-1a of "postgres", computed apart from this code */
	id = policy_rule_id("postgres");
	assert_int_equal(id, 0xd0d4074eu);
	assert_int_equal(policy_rule_by_id(&pol, id), 0);
	assert_int_equal(policy_rule_by_id(&pol,
					   policy_rule_id(pol.rules[2].name)),
			 2);
	assert_int_equal(policy_rule_by_id(&pol, IPCW_NO_RULE), -1);
	assert_int_equal(policy_rule_by_id(&pol, policy_rule_id("gone")), -1);
	assert_int_not_equal(policy_rule_id(""), IPCW_NO_RULE);
	assert_true(policy_enforces(&pol));
	pol.rules[0].mode = POLICY_AUDIT;
	assert_false(policy_enforces(&pol));
}

/* The largest values a file may give, and one past them. */
static void policy_bounds(void **state)
{
	char path[] = "/tmp/ipcwatch-bounds-XXXXXX", err[2048];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fprintf(f, "[rule a]\nmax_total_bytes = 9223372036854775807\n"
		"rmid_forced = yes\nrmid_grace = 36600d\n");
	fclose(f);
	assert_int_equal(policy_load(path, MEM_TOTAL, &pol, err, sizeof(err)),
			 0);
	assert_int_equal(pol.rules[0].max_total_bytes.bytes, INT64_MAX);
	assert_int_equal(pol.rules[0].rmid_grace_s, 36600ULL * 86400);
	f = fopen(path, "w");
	fprintf(f, "[rule a]\nmax_total_bytes = 9223372036854775808\n"
		"rmid_forced = yes\nrmid_grace = 3162240001s\n");
	fclose(f);
	assert_int_equal(policy_load(path, MEM_TOTAL, &pol, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, ":2: max_total_bytes"));
	assert_non_null(strstr(err, ":4: rmid_grace"));
	unlink(path);
}

static void policy_describe_in_words(void **state)
{
	char err[2048], *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(policy_load(EXAMPLE, MEM_TOTAL,
				     &pol, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	policy_describe(&pol, f);
	fclose(f);
	assert_non_null(strstr(text, "rule postgres (line 7), enforce:\n"
				     "  matches: uid 999\n"
				     "  refuse shmget() of a segment over 16 GiB "
				     "with EINVAL\n"
				     "  refuse shmget() past 4 GiB (50% of "
				     "MemTotal) in all per uid with ENOSPC\n"));
	assert_non_null(strstr(text, "  remove orphaned segments (creator "
				     "gone, nothing attached) after 300 s\n"));
	assert_non_null(strstr(text, "matches: every owner"));
	assert_non_null(strstr(text, "\nguard_rmid deny: refuse with EPERM "
				     "an IPC_RMID of a semaphore set or "
				     "segment in use"));
	free(text);
}

/* A directory of @len characters under /tmp, made level by level. */
static void long_dir(char *path, size_t len)
{
	size_t n = (size_t)snprintf(path, len + 1, "/tmp/ipcw-long");

	mkdir(path, 0700);
	while (n + 1 < len) {
		size_t part = len - n - 1 > 200 ? 200 : len - n - 1;

		path[n++] = '/';
		memset(path + n, 'd', part);
		n += part;
		path[n] = '\0';
		mkdir(path, 0700);
	}
}

/*
 * Kubernetes pod cgroup paths pass 200 characters, where Debian's
 * libinih cuts a line: every length up to PATH_MAX loads whole, with its
 * line numbers right; a longer line is an error naming its line.
 */
static void policy_long_lines(void **state)
{
	static const size_t lens[] = { 250, 1000, PATH_MAX - 1 };
	static char dir[PATH_MAX + 8], text[2 * PATH_MAX];
	char err[2048];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		long_dir(dir, lens[i]);
		assert_int_equal(strlen(dir), lens[i]);
		snprintf(text, sizeof(text), "[rule pod]\ncgroup = %s   ; the pod\n"
			 "account = cgroup\nmax_total_bytes = 1G\nbogus = 1\n", dir);
		f = fmemopen(text, strlen(text), "r");
		assert_non_null(f);
		assert_int_equal(policy_load_file(f, "k.ini", MEM_TOTAL, &pol,
						  err, sizeof(err)), -1);
		fclose(f);
		/* the one error is the one on line 5: nothing split */
		assert_string_equal(err, "k.ini:5: unknown key 'bogus' in "
				    "[rule pod]\n");
		assert_string_equal(pol.rules[0].cgroup, dir);
		assert_int_equal(pol.rules[0].max_total_bytes.bytes, 1ULL << 30);
	}
	memset(text, 'x', sizeof(text));
	memcpy(text, "[rule a]\nrmid_forced = yes\n; ", 29);
	memcpy(text + PATH_MAX + 100, "\nuid = 7\n", 10);
	f = fmemopen(text, PATH_MAX + 110, "r");
	assert_non_null(f);
	assert_int_equal(policy_load_file(f, "k.ini", MEM_TOTAL, &pol, err,
					  sizeof(err)), -1);
	fclose(f);
	assert_string_equal(err, "k.ini:3: line longer than 4160 characters\n");
}

/* What the fuzz target feeds: a stream, named as the caller says. */
static void policy_from_a_stream(void **state)
{
	static char text[] = "[rule db]\nuid = 1000\nmax_segment_bytes = 1G\n"
			     "[rule x]\nmax_total_bytes = 1.1B\n";
	char err[2048];
	FILE *f;

	(void)state;
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(policy_load_file(f, "mem.ini", MEM_TOTAL, &pol, err,
					  sizeof(err)), -1);
	fclose(f);
	assert_string_equal(err, "mem.ini:5: max_total_bytes '1.1B' (bytes "
			    "such as 64G, below 8E, or a % of MemTotal)\n"
			    "mem.ini:4: rule 'x' does nothing: give a max_*, "
			    "rmid_forced or alert_* key\n");
	/* the first rule alone */
	f = fmemopen(text, (size_t)(strstr(text, "[rule x]") - text), "r");
	assert_non_null(f);
	assert_int_equal(policy_load_file(f, "mem.ini", MEM_TOTAL, &pol, err,
					  sizeof(err)), 0);
	fclose(f);
	assert_string_equal(pol.path, "mem.ini");
	assert_int_equal(pol.nrules, 1);
	assert_int_equal(pol.rules[0].max_segment_bytes.bytes, 1ULL << 30);
}

/* A policy past the rule limit: one line for it, however far past. */
static void policy_too_many_rules_once(void **state)
{
	static char text[8192];
	char err[4096];
	size_t used = 0;
	FILE *f;
	int i;

	(void)state;
	for (i = 0; i < POLICY_MAX_RULES + 5; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "[rule r%d]\nuid = %d\nmax_segments = 1\n",
					 i, i);
	f = fmemopen(text, used, "r");
	assert_non_null(f);
	assert_int_equal(policy_load_file(f, "n.ini", MEM_TOTAL, &pol, err,
					  sizeof(err)), -1);
	fclose(f);
	assert_string_equal(err, "n.ini:97: more than 32 rules\n");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The table's size: two slots are kept, for an empty-corpus test and the
 * docs example.
 */
#define MAX_TESTS 128

static bool is_ini(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && !strcmp(name + len - 4, ".ini");
}

static void table_room(int n)
{
	if (n < MAX_TESTS - 2)
		return;
	fprintf(stderr, "test_policy: more than %d tests: raise MAX_TESTS\n",
		MAX_TESTS - 2);
	exit(1);
}

/* One test per corpus file, named after it. */
static int add_dir(struct CMUnitTest *tests, int n, const char *dir,
		   CMUnitTestFunction fn)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, by_name), i;

	for (i = 0; i < count; i++) {
		char *path;

		if (is_ini(names[i]->d_name) &&
		    asprintf(&path, "%s/%s", dir, names[i]->d_name) > 0) {
			table_room(n);
			tests[n].name = strdup(names[i]->d_name);
			tests[n].test_func = fn;
			tests[n].initial_state = path;
			n++;
		}
		free(names[i]);
	}
	free(names);
	return n;
}

/* A directory's files, or one failing test when it has none. */
static int add_corpus(struct CMUnitTest *tests, int n, const char *dir,
		      CMUnitTestFunction fn)
{
	int added = add_dir(tests, n, dir, fn);

	if (added > n)
		return added;
	table_room(n);
	tests[n].name = dir;
	tests[n].test_func = corpus_dir_empty;
	tests[n].initial_state = (void *)dir;
	return n + 1;
}

int main(void)
{
	static struct CMUnitTest tests[MAX_TESTS] = {
		cmocka_unit_test(policy_example_resolves),
		cmocka_unit_test(policy_first_match_wins),
		cmocka_unit_test(policy_rule_ids_by_name),
		cmocka_unit_test(policy_total_scopes_counted),
		cmocka_unit_test(policy_bounds),
		cmocka_unit_test(policy_describe_in_words),
		cmocka_unit_test(policy_from_a_stream),
		cmocka_unit_test(policy_long_lines),
		cmocka_unit_test(policy_too_many_rules_once),
	};
	int n = 0;

	/* after the fixed tests: the first empty slot */
	while (tests[n].test_func)
		n++;

	n = add_corpus(tests, n, CORPUS "/bad", bad_file);
	n = add_corpus(tests, n, CORPUS "/good", good_file);
	/* what the example means: policy_example_resolves */
	tests[n].name = "docs_policy_example.ini";
	tests[n].test_func = example_file;
	tests[n].initial_state = (void *)EXAMPLE;
	n++;
	return _cmocka_run_group_tests("policy", tests, n, NULL, NULL);
}
