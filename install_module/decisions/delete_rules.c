/*
 * The delete-own rules (see delete_rules.h for the table at a glance), in
 * the sentences maintainers have been reading.
 */
#include "delete_rules.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* What is still possible when a released file may not be deleted. */
#define DELETE_ALTERNATIVES "publish a new version instead; the release team can replace this one with install-module --force, and a server administrator can withdraw it by hand"

struct delete_rule {
	enum delete_stage stage;
	const char *name;
	bool (*allows)(const struct delete_facts *f, struct decision *d);
};

/* A duration for a human, in its largest whole unit ("25 hours", "1 minute"). */
static void format_span(unsigned long long secs, char *out, size_t len)
{
	unsigned long long n = secs;
	const char *unit = "second";

	if (secs >= 3600) {
		n = secs / 3600;
		unit = "hour";
	} else if (secs >= 60) {
		n = secs / 60;
		unit = "minute";
	}
	snprintf(out, len, "%llu %s%s", n, unit, n == 1 ? "" : "s");
}

static bool release_name(const struct delete_facts *f, struct decision *d)
{
	if (f->name_error != NULL)
		return decision_refuse(d, "%s", f->name_error);
	return true;
}

static bool policy_allows(const struct delete_facts *f, struct decision *d)
{
	if (f->basis == POLICY_DENY)
		return decision_refuse(d, "%s",
				       f->policy_reason ? f->policy_reason : "not allowed by the policy");
	return true;
}

static bool module_has_releases(const struct delete_facts *f, struct decision *d)
{
	if (!f->module_has_dir)
		return decision_refuse(d, "%s has no releases (nothing to delete)", f->module);
	return true;
}

static bool file_released(const struct delete_facts *f, struct decision *d)
{
	if (!f->file_in_tree)
		return decision_refuse(d,
				       "%s is neither in your incoming directory nor released (check the name with list)",
				       f->file);
	return true;
}

static bool installed_by_asker(const struct delete_facts *f, struct decision *d)
{
	if (f->installer != NULL && strcmp(f->installer, f->asker) == 0)
		return true;
	return decision_refuse(d,
			       "%s was not installed by you%s%s, and only the user who installed a release may delete it (%s)",
			       f->file, f->installer ? ", but by " : "", f->installer ? f->installer : "",
			       DELETE_ALTERNATIVES);
}

static bool deletes_enabled(const struct delete_facts *f, struct decision *d)
{
	if (f->delete_window == 0)
		return decision_refuse(d,
				       "%s: deleting released files is disabled on this server (delete_window: 0) (%s)",
				       f->file, DELETE_ALTERNATIVES);
	return true;
}

/* A clock set back must not reopen the window: it only ever shuts it. */
static bool clock_not_behind(const struct delete_facts *f, struct decision *d)
{
	time_t seen = f->clock_seen > f->installed_when ? f->clock_seen : f->installed_when;
	char behind[32];

	if (f->release_team || f->now >= seen)
		return true;
	format_span((unsigned long long)(seen - f->now), behind, sizeof(behind));
	return decision_refuse(d,
			       "the server's clock is %s behind a time it has already seen (%s): it was "
			       "set back, so the delete window cannot be judged; deletes are refused "
			       "until the clock is right again (an administrator who finds the later "
			       "time was the wrong one removes <state>/history/clock) (%s)",
			       behind, f->clock_seen > f->installed_when ? "an earlier request"
			       : "this release's install", DELETE_ALTERNATIVES);
}

static bool within_delete_window(const struct delete_facts *f, struct decision *d)
{
	time_t age = f->now - f->installed_when;
	char ago[32];
	char limit[32];

	if (f->release_team || age <= (time_t)f->delete_window)
		return true;
	format_span((unsigned long long)age, ago, sizeof(ago));
	format_span(f->delete_window, limit, sizeof(limit));
	return decision_refuse(d,
			       "%s was installed %s ago; you may delete your own releases only within %s of installing them (%s)",
			       f->file, ago, limit, DELETE_ALTERNATIVES);
}

static const struct delete_rule rules[] = {
	{ DELETE_STAGE_REQUEST, "release_name", release_name },
	{ DELETE_STAGE_REQUEST, "policy_allows", policy_allows },
	{ DELETE_STAGE_MODULE, "module_has_releases", module_has_releases },
	{ DELETE_STAGE_TREE, "file_released", file_released },
	{ DELETE_STAGE_LEDGER, "installed_by_asker", installed_by_asker },
	{ DELETE_STAGE_LEDGER, "deletes_enabled", deletes_enabled },
	{ DELETE_STAGE_LEDGER, "clock_not_behind", clock_not_behind },
	{ DELETE_STAGE_LEDGER, "within_delete_window", within_delete_window },
};

bool delete_rules_check(enum delete_stage stage, const struct delete_facts *f,
			struct decision *d)
{
	size_t i;

	decision_allow(d);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].stage == stage && !rules[i].allows(f, d)) {
			d->rule = rules[i].name;
			return false;
		}
	return true;
}
