// SPDX-License-Identifier: GPL-2.0
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "units.h"

struct parse {
	struct policy *p;
	const char *path;
	FILE *file;
	int line;		/* of the line the handler is given */
	int section_line;	/* of the last [section] header */
	bool new_section;	/* a header was read: even [a] after [a] */
	struct policy_rule *rule;	/* the section being read, or NULL */
	char section[128];
	bool in_policy;
	char seen[64][32];	/* keys given in this section */
	int nseen;
	char *err;
	size_t errlen, errused;
	int errors;
	bool too_many_rules;	/* said once, not once per rule past it */
	uint64_t mem_total;
	bool mode_given[POLICY_MAX_RULES];
	char *text;		/* the whole line the reader read */
	size_t text_cap;
	bool long_value;	/* the handler's value is in ps->value */
	char value[POLICY_MAX_LINE + 1];
};

static void error_at(struct parse *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void error_at(struct parse *ps, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	ps->errors++;
	if (ps->errused >= ps->errlen)
		return;
	n = snprintf(ps->err + ps->errused, ps->errlen - ps->errused, "%s:%d: ",
		     ps->path, line);
	if (n > 0)
		ps->errused += (size_t)n;
	if (ps->errused >= ps->errlen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(ps->err + ps->errused, ps->errlen - ps->errused, fmt, ap);
	va_end(ap);
	if (n > 0)
		ps->errused += (size_t)n;
	if (ps->errused + 1 < ps->errlen) {
		ps->err[ps->errused++] = '\n';
		ps->err[ps->errused] = '\0';
	}
}

/* fgets that counts lines, so the handler knows where it is */
/*
 * The value of a "key = value" line too long for libinih's line buffer
 * (200 bytes in Debian's build; a Kubernetes pod's cgroup path is
 * longer): kept in ps->value, the line given to libinih as
 * "key = <marker>" so that it still calls the handler for it. Trimmed,
 * and cut at an inline comment (";" after a blank), as libinih does.
 */
static char *long_line(struct parse *ps, char *str, int num)
{
	char *t = ps->text, *eq = strpbrk(t, "=:"), *v, *end, *c;
	size_t klen;

	t += strspn(t, " \t");
	if (*t == ';' || *t == '#')
		return strcpy(str, ";\n");
	klen = eq ? (size_t)(eq - t) : 0;
	if (*t == '[' || !eq || klen + 8 > (size_t)num)
		return strcpy(str, "\x1f\n");	/* libinih: syntax error */
	v = eq + 1 + strspn(eq + 1, " \t");
	for (c = v; (c = strchr(c, ';')); c++)
		if (c > v && (c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			break;
		}
	end = v + strlen(v);
	while (end > v && isspace((unsigned char)end[-1]))
		*--end = '\0';
	snprintf(ps->value, sizeof(ps->value), "%s", v);
	ps->long_value = true;
	snprintf(str, (size_t)num, "%.*s= \x1f\n", (int)klen, t);
	return str;
}

/* One whole line per call, however long, so line numbers stay true. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	ssize_t len = getline(&ps->text, &ps->text_cap, ps->file);

	if (len < 0)
		return NULL;
	ps->line++;
	ps->long_value = false;
	if (ps->text[strspn(ps->text, " \t")] == '[') {
		ps->section_line = ps->line;
		ps->new_section = true;
	}
	if (len > POLICY_MAX_LINE) {
		error_at(ps, ps->line, "line longer than %d characters",
			 POLICY_MAX_LINE);
		return strcpy(str, ";\n");
	}
	if (len < num)
		return memcpy(str, ps->text, (size_t)len + 1);
	return long_line(ps, str, num);
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") ||
	    !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") ||
		 !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

static bool parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)*v))
		return false;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n > max)
		return false;
	*out = n;
	return true;
}

/* "30", "30s", "5m", "2h", "1d" */
static bool parse_duration(const char *v, uint64_t *out)
{
	static const struct { char suffix; uint64_t scale; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char num[32];
	size_t len = strlen(v), i;
	uint64_t scale = 1;

	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, v, len + 1);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (num[len - 1] == units[i].suffix) {
			scale = units[i].scale;
			num[len - 1] = '\0';
		}
	/* the bound is checked before multiplying: nothing wraps */
	if (!parse_u64(num, POLICY_MAX_DURATION_S / scale, out))
		return false;
	*out *= scale;
	return true;
}

/* "64G", "4096", or "25%" of MemTotal */
static bool parse_amount(const char *v, uint64_t mem_total,
			 struct policy_amount *a)
{
	size_t len = strlen(v);

	memset(a, 0, sizeof(*a));
	if (len > 1 && v[len - 1] == '%') {
		char num[32], *end;
		double share;

		if (len >= sizeof(num))
			return false;
		memcpy(num, v, len - 1);
		num[len - 1] = '\0';
		if (!isdigit((unsigned char)num[0]))
			return false;
		share = strtod(num, &end);
		if (*end || share <= 0 || share > 100)
			return false;
		a->percent = true;
		a->share = share;
		a->bytes = (uint64_t)((long double)mem_total * share / 100);
	} else if (!parse_bytes(v, &a->bytes) || a->bytes > POLICY_MAX_BYTES) {
		/* 2^63 or more: no segment can be that large, and a charge
		 * of it would be negative */
		return false;
	}
	a->set = true;
	return true;
}

static struct policy_rule *new_rule(struct parse *ps, const char *name)
{
	struct policy *p = ps->p;
	struct policy_rule *r;
	int i;

	for (i = 0; i < p->nrules; i++) {
		if (!strcmp(p->rules[i].name, name)) {
			error_at(ps, ps->section_line,
				 "rule '%s' is defined twice (first at line %d)",
				 name, p->rules[i].line);
			return NULL;
		}
		if (policy_rule_id(p->rules[i].name) == policy_rule_id(name)) {
			error_at(ps, ps->section_line,
				 "rule '%s' has the id of rule '%s' (line %d): "
				 "rename one", name, p->rules[i].name,
				 p->rules[i].line);
			return NULL;
		}
	}
	if (p->nrules == POLICY_MAX_RULES) {
		if (ps->too_many_rules)
			ps->errors++;
		else
			error_at(ps, ps->section_line, "more than %d rules",
				 POLICY_MAX_RULES);
		ps->too_many_rules = true;
		return NULL;
	}
	r = &p->rules[p->nrules++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->line = ps->section_line;
	return r;
}

/* A new [section]: "policy" or "rule NAME". */
static void enter_section(struct parse *ps, const char *section)
{
	const char *name;
	size_t i;

	snprintf(ps->section, sizeof(ps->section), "%s", section);
	ps->nseen = 0;
	ps->rule = NULL;
	ps->in_policy = false;
	if (!strcmp(section, "policy")) {
		ps->in_policy = true;
		return;
	}
	if (strncmp(section, "rule ", 5)) {
		error_at(ps, ps->section_line,
			 "unknown section [%s] (policy or rule NAME)", section);
		return;
	}
	name = section + 5;
	while (*name == ' ')
		name++;
	if (!*name || strlen(name) >= POLICY_NAME_LEN) {
		error_at(ps, ps->section_line, "rule name must be 1 to %d characters",
			 POLICY_NAME_LEN - 1);
		return;
	}
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i])) {
			error_at(ps, ps->section_line,
				 "rule name '%s': only letters, digits, '-', "
				 "'_' and '.'", name);
			return;
		}
	ps->rule = new_rule(ps, name);
}

static bool parse_mode(const char *v, enum policy_mode *m)
{
	if (!strcmp(v, "audit"))
		*m = POLICY_AUDIT;
	else if (!strcmp(v, "enforce"))
		*m = POLICY_ENFORCE;
	else
		return false;
	return true;
}

static bool parse_guard(const char *v, enum policy_guard *g)
{
	if (!strcmp(v, "off"))
		*g = GUARD_OFF;
	else if (!strcmp(v, "audit"))
		*g = GUARD_AUDIT;
	else if (!strcmp(v, "deny"))
		*g = GUARD_DENY;
	else
		return false;
	return true;
}

/* A key of [policy]. */
static void policy_key(struct parse *ps, const char *k, const char *v)
{
	if (!strcmp(k, "mode")) {
		if (!parse_mode(v, &ps->p->mode))
			error_at(ps, ps->line, "mode '%s' (audit or enforce)",
				 v);
	} else if (!strcmp(k, "guard_rmid")) {
		if (!parse_guard(v, &ps->p->guard_rmid))
			error_at(ps, ps->line,
				 "guard_rmid '%s' (off, audit or deny)", v);
	} else {
		error_at(ps, ps->line, "unknown key '%s' in [policy]", k);
	}
}

static void rule_key(struct parse *ps, struct policy_rule *r, const char *k,
		     const char *v)
{
	struct policy_amount *amount = NULL;
	struct stat st;
	uint64_t n;

	if (!strcmp(k, "uid") || !strcmp(k, "gid") || !strcmp(k, "ipcns")) {
		if (!parse_u64(v, UINT32_MAX - 1, &n)) {
			error_at(ps, ps->line,
				 "%s '%s' is not a number", k, v);
			return;
		}
		if (k[0] == 'u') {
			r->match_uid = true;
			r->uid = (uint32_t)n;
		} else if (k[0] == 'g') {
			r->match_gid = true;
			r->gid = (uint32_t)n;
		} else {
			r->match_ipcns = true;
			r->ipcns = (uint32_t)n;
		}
	} else if (!strcmp(k, "cgroup")) {
		if (v[0] != '/') {
			error_at(ps, ps->line,
				 "cgroup '%s' is not an absolute path", v);
			return;
		}
		if (strlen(v) >= sizeof(r->cgroup)) {
			error_at(ps, ps->line,
				 "cgroup path longer than %zu characters",
				 sizeof(r->cgroup) - 1);
			return;
		}
		if (stat(v, &st) || !S_ISDIR(st.st_mode)) {
			error_at(ps, ps->line,
				 "cgroup '%s' is not a directory", v);
			return;
		}
		memcpy(r->cgroup, v, strlen(v) + 1);	/* fits: checked */
		/* "/a/b/" and "/a/b" are the same cgroup */
		while (strlen(r->cgroup) > 1 &&
		       r->cgroup[strlen(r->cgroup) - 1] == '/')
			r->cgroup[strlen(r->cgroup) - 1] = '\0';
	} else if (!strcmp(k, "mode")) {
		if (!parse_mode(v, &r->mode)) {
			error_at(ps, ps->line,
				 "mode '%s' (audit or enforce)", v);
			return;
		}
		ps->mode_given[r - ps->p->rules] = true;
	} else if (!strcmp(k, "account")) {
		if (!strcmp(v, "uid"))
			r->scope = SCOPE_UID;
		else if (!strcmp(v, "gid"))
			r->scope = SCOPE_GID;
		else if (!strcmp(v, "cgroup"))
			r->scope = SCOPE_CGROUP;
		else if (!strcmp(v, "ipcns"))
			r->scope = SCOPE_IPCNS;
		else
			{
				error_at(ps, ps->line,
					 "account '%s' (uid, gid, cgroup or ipcns)",
					 v);
				return;
			}
	} else if (!strcmp(k, "max_segments")) {
		if (!parse_u64(v, UINT32_MAX, &r->max_segments)) {
			error_at(ps, ps->line,
				 "max_segments '%s' is not a number", v);
			return;
		}
		r->has_max_segments = true;
	} else if (!strcmp(k, "rmid_forced")) {
		if (!parse_bool(v, &r->rmid_forced)) {
			error_at(ps, ps->line,
				 "rmid_forced '%s' (yes or no)", v);
			return;
		}
	} else if (!strcmp(k, "rmid_grace")) {
		if (!parse_duration(v, &r->rmid_grace_s)) {
			error_at(ps, ps->line,
				 "rmid_grace '%s' (seconds, or with s, "
				 "m, h, d; at most 100 years)", v);
			return;
		}
	} else if (!strcmp(k, "guard_rmid")) {
		/* the remover, not the owner, is who a rule would match */
		error_at(ps, ps->line,
			 "guard_rmid is a [policy] key: it guards every "
			 "owner's objects, not [rule %s]'s", r->name);
	} else {
		if (!strcmp(k, "max_segment_bytes"))
			amount = &r->max_segment_bytes;
		else if (!strcmp(k, "max_total_bytes"))
			amount = &r->max_total_bytes;
		else if (!strcmp(k, "alert_segment_bytes"))
			amount = &r->alert_segment_bytes;
		else if (!strcmp(k, "alert_owner_bytes"))
			amount = &r->alert_owner_bytes;
		else if (!strcmp(k, "alert_namespace_bytes"))
			amount = &r->alert_namespace_bytes;
		if (!amount) {
			error_at(ps, ps->line,
				 "unknown key '%s' in [rule %s]", k,
				 r->name);
			return;
		}
		if (!parse_amount(v, ps->mem_total, amount)) {
			error_at(ps, ps->line,
				 "%s '%s' (bytes such as 64G, below 8E, "
				 "or a %% of MemTotal)", k, v);
			return;
		}
		if (amount->bytes == 0) {
			error_at(ps, ps->line,
				 "%s is 0: use kernel.shmall = 0 to "
				 "disable shared memory", k);
			return;
		}
	}
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse *ps = user;
	int i;

	if (ps->long_value && !strcmp(value, "\x1f"))
		value = ps->value;
	if (ps->new_section || strcmp(section, ps->section)) {
		ps->new_section = false;
		enter_section(ps, section);
	}
	if (!section[0]) {
		error_at(ps, ps->line, "'%s' outside a section", name);
		return 1;
	}
	for (i = 0; i < ps->nseen; i++)
		if (!strcmp(ps->seen[i], name)) {
			error_at(ps, ps->line, "'%s' given twice in [%s]", name,
				 section);
			return 1;
		}
	if (ps->nseen < 64)
		snprintf(ps->seen[ps->nseen++], sizeof(ps->seen[0]), "%s", name);
	if (!value[0]) {
		error_at(ps, ps->line, "'%s' has no value", name);
		return 1;
	}
	if (ps->in_policy) {
		policy_key(ps, name, value);
	} else if (ps->rule) {
		rule_key(ps, ps->rule, name, value);
	}
	return 1;
}

/* Checks that need the whole rule. */
static void check_rule(struct parse *ps, struct policy_rule *r)
{
	bool acts = r->max_segment_bytes.set || r->max_total_bytes.set ||
		    r->has_max_segments || r->rmid_forced ||
		    r->alert_segment_bytes.set || r->alert_owner_bytes.set ||
		    r->alert_namespace_bytes.set;

	if (!acts)
		error_at(ps, r->line,
			 "rule '%s' does nothing: give a max_*, rmid_forced or "
			 "alert_* key", r->name);
	if (r->rmid_grace_s && !r->rmid_forced)
		error_at(ps, r->line,
			 "rule '%s': rmid_grace without rmid_forced = yes",
			 r->name);
	if (r->scope == SCOPE_CGROUP && !r->cgroup[0])
		error_at(ps, r->line,
			 "rule '%s': account = cgroup needs a cgroup to match",
			 r->name);
	/* a share of MemTotal differs from machine to machine: no check */
	if (r->max_segment_bytes.set && r->max_total_bytes.set &&
	    !r->max_segment_bytes.percent && !r->max_total_bytes.percent &&
	    r->max_segment_bytes.bytes > r->max_total_bytes.bytes)
		error_at(ps, r->line,
			 "rule '%s': max_segment_bytes is above max_total_bytes",
			 r->name);
}

/* What every load starts from: an empty policy, no error. */
static void policy_reset(struct policy *p, const char *path, char *err,
			 size_t errlen)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (errlen)
		err[0] = '\0';
}

int policy_load(const char *path, uint64_t mem_total, struct policy *p,
		char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		int e = errno;

		policy_reset(p, path, err, errlen);
		snprintf(err, errlen, "%s: %s\n", path, strerror(e));
		return -1;
	}
	ret = policy_load_file(f, path, mem_total, p, err, errlen);
	fclose(f);
	return ret;
}

int policy_load_file(FILE *f, const char *path, uint64_t mem_total,
		     struct policy *p, char *err, size_t errlen)
{
	struct parse ps = { .p = p, .path = path, .file = f, .err = err,
			    .errlen = errlen, .mem_total = mem_total };
	int ret, i;

	policy_reset(p, path, err, errlen);
	ret = ini_parse_stream(reader, &ps, handler, &ps);
	free(ps.text);
	if (ret > 0)
		error_at(&ps, ret,
			 "syntax error: expected [section], key = value or a "
			 "comment");
	for (i = 0; i < p->nrules; i++) {
		if (!ps.mode_given[i])
			p->rules[i].mode = p->mode;
		check_rule(&ps, &p->rules[i]);
	}
	/* the guard alone is a policy; nothing at all is a mistake */
	if (!ps.errors && p->nrules == 0 && p->guard_rmid == GUARD_OFF)
		error_at(&ps, ps.line,
			 "no [rule NAME] section and no guard_rmid");
	return ps.errors ? -1 : 0;
}

uint32_t policy_total_scopes(const struct policy *p)
{
	uint32_t scopes = 0;
	int i;

	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].max_total_bytes.set ||
		    p->rules[i].has_max_segments)
			scopes |= 1U << p->rules[i].scope;
	return scopes;
}

bool policy_enforces(const struct policy *p)
{
	int i;

	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].mode == POLICY_ENFORCE)
			return true;
	return false;
}

const char *policy_mode_name(enum policy_mode mode)
{
	return mode == POLICY_ENFORCE ? "enforce" : "audit";
}

const char *policy_guard_name(enum policy_guard guard)
{
	switch (guard) {
	case GUARD_AUDIT: return "audit";
	case GUARD_DENY: return "deny";
	default: return "off";
	}
}

const char *policy_scope_name(enum policy_scope scope)
{
	static const char *const names[] = { "uid", "gid", "cgroup", "ipcns" };

	return scope <= SCOPE_IPCNS ? names[scope] : "?";
}

static const char *amount_text(const struct policy_amount *a, char *buf,
			       size_t len)
{
	char b[UNITS_BUF];

	if (a->percent)
		snprintf(buf, len, "%s (%g%% of MemTotal)",
			 fmt_bytes(b, sizeof(b), a->bytes), a->share);
	else
		snprintf(buf, len, "%s", fmt_bytes(b, sizeof(b), a->bytes));
	return buf;
}

void policy_describe(const struct policy *p, FILE *out)
{
	char a[96];
	int i;

	fprintf(out, "%s: %d rule%s, default mode %s; the first matching rule "
		"applies\n", p->path, p->nrules, p->nrules == 1 ? "" : "s",
		policy_mode_name(p->mode));
	if (p->guard_rmid != GUARD_OFF)
		fprintf(out, "guard_rmid %s: %s an IPC_RMID of a semaphore set "
			"or segment in use (a sleeper, an attach, its creator "
			"or last operator alive) by a process that is not its "
			"creator and not of its owner's or creator's uid, root "
			"included%s\n", policy_guard_name(p->guard_rmid),
			p->guard_rmid == GUARD_DENY ? "refuse with EPERM" :
			"log (audit) but allow",
			p->guard_rmid == GUARD_DENY ? ", and log it" : "");
	for (i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];
		const char *verb = r->mode == POLICY_ENFORCE ?
				   "refuse" : "log (audit) but allow";

		fprintf(out, "\nrule %s (line %d), %s:\n", r->name, r->line,
			policy_mode_name(r->mode));
		fprintf(out, "  matches:");
		if (r->match_uid)
			fprintf(out, " uid %u", r->uid);
		if (r->match_gid)
			fprintf(out, " gid %u", r->gid);
		if (r->cgroup[0])
			fprintf(out, " cgroup %s and below", r->cgroup);
		if (r->match_ipcns)
			fprintf(out, " IPC namespace %u", r->ipcns);
		if (!r->match_uid && !r->match_gid && !r->cgroup[0] &&
		    !r->match_ipcns)
			fprintf(out, " every owner");
		fputc('\n', out);
		if (r->max_segment_bytes.set)
			fprintf(out, "  %s shmget() of a segment over %s "
				"with EINVAL\n", verb,
				amount_text(&r->max_segment_bytes, a, sizeof(a)));
		if (r->max_total_bytes.set)
			fprintf(out, "  %s shmget() past %s in all per %s "
				"with ENOSPC\n", verb,
				amount_text(&r->max_total_bytes, a, sizeof(a)),
				policy_scope_name(r->scope));
		if (r->has_max_segments)
			fprintf(out, "  %s shmget() past %llu segments per %s "
				"with ENOSPC\n", verb,
				(unsigned long long)r->max_segments,
				policy_scope_name(r->scope));
		if (r->rmid_forced)
			fprintf(out, "  remove orphaned segments (creator gone, "
				"nothing attached) after %llu s\n",
				(unsigned long long)r->rmid_grace_s);
		if (r->alert_segment_bytes.set)
			fprintf(out, "  alert on a segment of %s or more\n",
				amount_text(&r->alert_segment_bytes, a,
					    sizeof(a)));
		if (r->alert_owner_bytes.set)
			fprintf(out, "  alert when one owner holds %s or more\n",
				amount_text(&r->alert_owner_bytes, a, sizeof(a)));
		if (r->alert_namespace_bytes.set)
			fprintf(out, "  alert when the namespace holds %s or "
				"more\n", amount_text(&r->alert_namespace_bytes,
						     a, sizeof(a)));
	}
}

static bool under_cgroup(const char *rule, const char *path)
{
	size_t n = strlen(rule);

	return path[0] && !strncmp(rule, path, n) &&
	       (path[n] == '\0' || path[n] == '/');
}

int policy_match(const struct policy *p, uint32_t uid, uint32_t gid,
		 const char *cgroup_path, uint32_t ipcns)
{
	int i;

	for (i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];

		if ((r->match_uid && r->uid != uid) ||
		    (r->match_gid && r->gid != gid) ||
		    (r->match_ipcns && r->ipcns != ipcns) ||
		    (r->cgroup[0] && !under_cgroup(r->cgroup, cgroup_path)))
			continue;
		return i;
	}
	return -1;
}

/* FNV-1a, 32 bits */
uint32_t policy_rule_id(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h == IPCW_NO_RULE ? 1 : h;
}

int policy_rule_by_id(const struct policy *p, uint32_t id)
{
	int i;

	if (id == IPCW_NO_RULE)
		return -1;
	for (i = 0; i < p->nrules; i++)
		if (policy_rule_id(p->rules[i].name) == id)
			return i;
	return -1;
}

const char *limit_kind_name(enum ipcw_limit kind)
{
	switch (kind) {
	case IPCW_LIMIT_SEGMENT: return "max_segment_bytes";
	case IPCW_LIMIT_TOTAL: return "max_total_bytes";
	case IPCW_LIMIT_COUNT: return "max_segments";
	case IPCW_LIMIT_ACCOUNTING: return "accounting";
	default: return "?";
	}
}
