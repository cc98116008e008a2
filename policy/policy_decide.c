/*
 * The decision: may this user install or delete releases of this module?
 *
 * MUST deny whenever anything is unknown or fails: a missing policy, an
 * invalid user or module name, a user or group that cannot be looked up.
 * decide() applies the rules in the order docs/POLICY.md gives (maintainer,
 * release team, open module; no match is a denial) and only that; explain()
 * turns its verdict into the sentence for the person who asked and the log.
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

/* getgrnam_r and getpwnam_r behind one signature, for gid_of(): the gid of a
 * group, the primary gid of a user. */
typedef int lookup_fn(const char *name, char *buf, size_t size, gid_t *gid, bool *found);

static int group_gid(const char *name, char *buf, size_t size, gid_t *gid, bool *found)
{
	struct group gr, *res = NULL;
	int rc = getgrnam_r(name, &gr, buf, size, &res);

	*found = res != NULL;
	if (*found)
		*gid = gr.gr_gid;
	return rc;
}

static int user_primary_gid(const char *name, char *buf, size_t size, gid_t *gid, bool *found)
{
	struct passwd pw, *res = NULL;
	int rc = getpwnam_r(name, &pw, buf, size, &res);

	*found = res != NULL;
	if (*found)
		*gid = pw.pw_gid;
	return rc;
}

/* Look name up with a buffer that grows until the entry fits. */
static bool gid_of(lookup_fn *fn, const char *name, gid_t *gid)
{
	size_t size = 1024;
	char *buf = NULL;
	bool found = false;
	int rc;

	/* No gid until one is found: callers read it only then, but a defined
	 * value keeps that from resting on the compiler seeing it. */
	*gid = (gid_t)-1;
	do {
		char *bigger = realloc(buf, size);
		if (bigger == NULL)
			break;
		buf = bigger;
		rc = fn(name, buf, size, gid, &found);
		size *= 2;
	} while (rc == ERANGE && size <= LOOKUP_BUF_MAX);
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

	if (!gid_of(group_gid, group, &want) || !gid_of(user_primary_gid, user, &primary))
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

/* Why a request cannot even be weighed; REQUEST_OK when it can. */
enum request_fault {
	REQUEST_OK,
	NO_POLICY,
	NO_MODULE_LIST,
	BAD_USER,
	BAD_ACTION,
	BAD_MODULE,
};

/* What decide() found: the rule that matched, and what explain() needs to say why. */
struct verdict {
	enum policy_basis basis;
	enum request_fault fault;
	enum team_via via;                    /* set once the release team was asked */
	const struct policy_module *module;   /* NULL: not in the policy */
};

static enum request_fault request_fault(const struct policy *p, const char *user,
					enum policy_action action, const char *module)
{
	if (p == NULL)
		return NO_POLICY;
	if (!policy_modules_loaded(p))
		return NO_MODULE_LIST;
	if (user == NULL || !name_is_user(user))
		return BAD_USER;
	if (action != POLICY_INSTALL && action != POLICY_DELETE)
		return BAD_ACTION;
	if (module == NULL || !name_is_module(module))
		return BAD_MODULE;
	return REQUEST_OK;
}

/* The rules in the order docs/POLICY.md gives them; nothing matched is a denial. */
static struct verdict decide(const struct policy *p, const char *user,
			     enum policy_action action, const char *module)
{
	struct verdict v = { POLICY_DENY, request_fault(p, user, action, module), TEAM_NONE, NULL };

	if (v.fault != REQUEST_OK)
		return v;
	v.module = policy_module_find(p, module);
	if (v.module != NULL && list_has(v.module->maintainers, user))
		v.basis = POLICY_MAINTAINER;
	else if ((v.via = release_team_via(p, user)) != TEAM_NONE)
		v.basis = POLICY_RELEASE_TEAM;
	else if (v.module != NULL && v.module->open)
		v.basis = POLICY_OPEN;
	return v;
}

static void explain_fault(struct sentence *s, enum request_fault fault, const char *user,
			  const char *verb, const char *module)
{
	switch (fault) {
	case NO_POLICY:
		say(s, "no policy is loaded");
		break;
	case NO_MODULE_LIST:
		say(s, "the module list is not loaded");
		break;
	case BAD_USER:
		say(s, "'%s' is not a valid user name", user ? user : "(none)");
		break;
	case BAD_ACTION:
		say(s, "%s may not do an unknown action", user);
		break;
	case BAD_MODULE:
		say(s, "%s may not %s '%s': not a valid module name", user, verb,
		    module ? module : "(none)");
		break;
	case REQUEST_OK:
		break;
	}
}

static void explain_denial(struct sentence *s, const struct policy *p, const char *user,
			   const char *verb, const char *module, const struct policy_module *m)
{
	if (m == NULL) {
		say(s, "%s may not %s %s: it is not a known module, and only the release team "
		    "may create a new module (", user, verb, module);
		say_team(s, p);
		say(s, ")");
		return;
	}
	say(s, "%s may not %s %s: maintainers are ", user, verb, module);
	say_list(s, m->maintainers);
	say(s, "; ");
	say_team(s, p);
}

/* The sentence for the person who asked and for the log. */
static void explain(struct sentence *s, const struct policy *p, const char *user,
		    enum policy_action action, const char *module, const struct verdict *v)
{
	const char *verb = action == POLICY_DELETE ? "delete releases of" : "release";

	switch (v->basis) {
	case POLICY_MAINTAINER:
		say(s, "%s is a maintainer of %s (from %s)", user, module, v->module->source);
		break;
	case POLICY_RELEASE_TEAM:
		say_member(s, p, user, v->via);
		if (v->module == NULL)
			say(s, "; %s is a new module, which only the release team may create", module);
		break;
	case POLICY_OPEN:
		say(s, "%s is open to every uploader (non-maintainer upload)", module);
		break;
	case POLICY_DENY:
		if (v->fault != REQUEST_OK)
			explain_fault(s, v->fault, user, verb, module);
		else
			explain_denial(s, p, user, verb, module, v->module);
		break;
	}
}

enum policy_basis policy_may(const struct policy *p, const char *user,
			     enum policy_action action, const char *module,
			     char *why, size_t whylen)
{
	char scratch[1];
	struct sentence s = { why, 0, whylen };
	struct verdict v = decide(p, user, action, module);

	if (why == NULL || whylen == 0) {
		s.buf = scratch;
		s.cap = sizeof(scratch);
	}
	s.buf[0] = '\0';
	explain(&s, p, user, action, module, &v);
	return v.basis;
}

bool policy_signature_required(const struct policy *p, const char *module)
{
	const struct policy_module *m;

	if (p == NULL || !p->modules_loaded || p->settings.signature_require)
		return true;
	m = policy_module_find(p, module);
	return m != NULL && m->signature == POLICY_SIGNATURE_REQUIRED;
}

const struct policy_ci_issuer *policy_ci_issuer_find(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; p != NULL && name != NULL && i < p->settings.ci_nissuers; i++)
		if (strcmp(p->settings.ci_issuers[i].name, name) == 0)
			return &p->settings.ci_issuers[i];
	return NULL;
}

bool policy_ci_may(const struct policy *p, const char *issuer, const char *project,
		   const char *module)
{
	const struct policy_module *m;
	size_t i;

	if (p == NULL || !p->modules_loaded || p->modules_failed || issuer == NULL ||
	    project == NULL || module == NULL || policy_ci_issuer_find(p, issuer) == NULL)
		return false;
	m = policy_module_find(p, module);
	for (i = 0; m != NULL && i < m->nci; i++)
		if (strcmp(m->ci[i].issuer, issuer) == 0 && strcmp(m->ci[i].project, project) == 0)
			return true;
	return false;
}
