/*
 * The decision: may this user install or delete releases of this module?
 *
 * MUST deny whenever anything is unknown or fails: a missing policy, an
 * invalid user or module name, a user or group that cannot be looked up.
 * The order is maintainer, release team, open module; no match is a denial.
 * Every answer comes with a sentence for the person who asked and the log.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "text.h"

#define LOOKUP_BUF_MAX (1024 * 1024)
#define GROUPS_MAX 65536

enum team_via {
	TEAM_NONE,
	TEAM_LIST,
	TEAM_GROUP,
};

static bool list_has(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

/* getgrnam_r and getpwnam_r behind one signature, for lookup_grown(). */
typedef int lookup_fn(const char *name, void *entry, char *buf, size_t size, bool *found);

static int group_by_name(const char *name, void *entry, char *buf, size_t size, bool *found)
{
	struct group *res = NULL;
	int rc = getgrnam_r(name, entry, buf, size, &res);

	*found = res != NULL;
	return rc;
}

static int passwd_by_name(const char *name, void *entry, char *buf, size_t size, bool *found)
{
	struct passwd *res = NULL;
	int rc = getpwnam_r(name, entry, buf, size, &res);

	*found = res != NULL;
	return rc;
}

/* Look name up with a buffer that grows until the entry fits. The entry
 * points into *buf, which the caller frees. */
static bool lookup_grown(lookup_fn *fn, const char *name, void *entry, char **buf)
{
	size_t size = 1024;
	bool found = false;
	int rc;

	*buf = NULL;
	do {
		char *bigger = realloc(*buf, size);
		if (bigger == NULL)
			break;
		*buf = bigger;
		rc = fn(name, entry, *buf, size, &found);
		size *= 2;
	} while (rc == ERANGE && size <= LOOKUP_BUF_MAX);
	return found;
}

static bool group_gid(const char *group, gid_t *gid)
{
	struct group gr;
	char *buf;
	bool found = lookup_grown(group_by_name, group, &gr, &buf);

	if (found)
		*gid = gr.gr_gid;
	free(buf);
	return found;
}

static bool user_primary_gid(const char *user, gid_t *gid)
{
	struct passwd pw;
	char *buf;
	bool found = lookup_grown(passwd_by_name, user, &pw, &buf);

	if (found)
		*gid = pw.pw_gid;
	free(buf);
	return found;
}

static bool user_in_group(const char *user, const char *group)
{
	gid_t want, primary;
	gid_t *groups = NULL;
	int n = 64;
	bool found = false;
	int i;

	if (!group_gid(group, &want) || !user_primary_gid(user, &primary))
		return false;
	for (;;) {
		int have = n;
		gid_t *bigger = realloc(groups, (size_t)n * sizeof(*groups));
		if (bigger == NULL)
			break;
		groups = bigger;
		if (getgrouplist(user, primary, groups, &n) >= 0) {
			for (i = 0; i < n && !found; i++)
				found = groups[i] == want;
			break;
		}
		/* n now holds the number needed; refuse absurd answers. */
		if (n <= have || n > GROUPS_MAX)
			break;
	}
	free(groups);
	return found;
}

static enum team_via release_team_via(const struct policy *p, const char *user)
{
	const struct policy_settings *s = &p->settings;

	if (list_has(s->release_team_users, user))
		return TEAM_LIST;
	if (s->release_team_group != NULL && user_in_group(user, s->release_team_group))
		return TEAM_GROUP;
	return TEAM_NONE;
}

bool policy_is_release_team(const struct policy *p, const char *user)
{
	if (p == NULL || user == NULL || !name_is_user(user))
		return false;
	return release_team_via(p, user) != TEAM_NONE;
}

/* A sentence built piece by piece; a cut sentence ends in "...". */
struct sentence {
	char *buf;
	size_t len, cap;
};

static void say(struct sentence *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct sentence *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->cap == 0 || s->len >= s->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= s->cap - s->len) {
		s->len = s->cap;
		if (s->cap > 4)
			memcpy(s->buf + s->cap - 4, "...", 4);
		return;
	}
	s->len += (size_t)n;
}

static void say_list(struct sentence *s, const char *const *list)
{
	const char *sep = "";

	for (; list != NULL && *list != NULL; list++) {
		say(s, "%s%s", sep, *list);
		sep = ", ";
	}
}

static void say_team(struct sentence *s, const struct policy *p)
{
	const struct policy_settings *st = &p->settings;
	bool users = st->release_team_users != NULL && st->release_team_users[0] != NULL;

	say(s, "release team: ");
	if (!users && st->release_team_group == NULL) {
		say(s, "none");
		return;
	}
	say_list(s, st->release_team_users);
	if (st->release_team_group != NULL)
		say(s, "%sgroup %s", users ? ", " : "", st->release_team_group);
}

static void say_member(struct sentence *s, const struct policy *p, const char *user,
		       enum team_via via)
{
	if (via == TEAM_GROUP)
		say(s, "%s is in the release team (group %s)", user,
		    p->settings.release_team_group);
	else
		say(s, "%s is in the release team (listed in %s)", user, p->config_name);
}

static enum policy_basis decide_unknown(struct sentence *s, const struct policy *p,
					const char *user, const char *verb, const char *module,
					enum team_via via)
{
	if (via != TEAM_NONE) {
		say_member(s, p, user, via);
		say(s, "; %s is a new module, which only the release team may create", module);
		return POLICY_RELEASE_TEAM;
	}
	say(s, "%s may not %s %s: it is not a known module, and only the release team "
	    "may create a new module (", user, verb, module);
	say_team(s, p);
	say(s, ")");
	return POLICY_DENY;
}

static enum policy_basis decide(struct sentence *s, const struct policy *p, const char *user,
				enum policy_action action, const char *module)
{
	const char *verb = action == POLICY_DELETE ? "delete releases of" : "release";
	const struct policy_module *m;
	enum team_via via;

	if (p == NULL) {
		say(s, "no policy is loaded");
		return POLICY_DENY;
	}
	if (!policy_modules_loaded(p)) {
		say(s, "the module list is not loaded");
		return POLICY_DENY;
	}
	if (user == NULL || !name_is_user(user)) {
		say(s, "'%s' is not a valid user name", user ? user : "(none)");
		return POLICY_DENY;
	}
	if (action != POLICY_INSTALL && action != POLICY_DELETE) {
		say(s, "%s may not do an unknown action", user);
		return POLICY_DENY;
	}
	if (module == NULL || !name_is_module(module)) {
		say(s, "%s may not %s '%s': not a valid module name", user, verb,
		    module ? module : "(none)");
		return POLICY_DENY;
	}
	m = policy_module_find(p, module);
	if (m != NULL && list_has(m->maintainers, user)) {
		say(s, "%s is a maintainer of %s (from %s)", user, module, m->source);
		return POLICY_MAINTAINER;
	}
	via = release_team_via(p, user);
	if (m == NULL)
		return decide_unknown(s, p, user, verb, module, via);
	if (via != TEAM_NONE) {
		say_member(s, p, user, via);
		return POLICY_RELEASE_TEAM;
	}
	if (m->open) {
		say(s, "%s is open to every uploader (non-maintainer upload)", module);
		return POLICY_OPEN;
	}
	say(s, "%s may not %s %s: maintainers are ", user, verb, module);
	say_list(s, m->maintainers);
	say(s, "; ");
	say_team(s, p);
	return POLICY_DENY;
}

enum policy_basis policy_may(const struct policy *p, const char *user,
			     enum policy_action action, const char *module,
			     char *why, size_t whylen)
{
	char scratch[1];
	struct sentence s = { why, 0, whylen };

	if (why == NULL || whylen == 0) {
		s.buf = scratch;
		s.cap = sizeof(scratch);
	}
	s.buf[0] = '\0';
	return decide(&s, p, user, action, module);
}

bool policy_signature_required(const struct policy *p, const char *module)
{
	const struct policy_module *m;

	if (p == NULL || !p->modules_loaded || p->settings.signature_require)
		return true;
	m = policy_module_find(p, module);
	return m != NULL && m->signature == POLICY_SIGNATURE_REQUIRED;
}
