#include "policy_report.h"

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

/* One (user, module) pair: sorted by user, it gives the distinct users. */
struct pair {
	const char *user;
	const char *module;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int d = strcmp(x->user, y->user);

	return d != 0 ? d : strcmp(x->module, y->module);
}

static struct pair *maintainer_pairs(const struct policy *p, size_t *n)
{
	size_t i, j, count = 0;
	struct pair *v;

	for (i = 0; i < policy_module_count(p); i++)
		for (j = 0; policy_module_at(p, i)->maintainers[j] != NULL; j++)
			count++;
	v = calloc(count + 1, sizeof(*v));
	if (v == NULL)
		return NULL;
	*n = 0;
	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		for (j = 0; m->maintainers[j] != NULL; j++)
			v[(*n)++] = (struct pair){ m->maintainers[j], m->name };
	}
	qsort(v, *n, sizeof(*v), cmp_pair);
	return v;
}

static size_t count_distinct(const struct pair *v, size_t n)
{
	size_t i, distinct = n > 0;

	for (i = 1; i < n; i++)
		distinct += strcmp(v[i - 1].user, v[i].user) != 0;
	return distinct;
}

/* Warn about maintainers the system does not know, naming their modules. */
static unsigned warn_unknown_users(FILE *out, const struct pair *v, size_t n)
{
	unsigned warnings = 0;
	size_t i = 0, j, k;

	while (i < n) {
		for (j = i; j < n && strcmp(v[j].user, v[i].user) == 0; j++)
			;
		if (getpwnam(v[i].user) == NULL) {
			fprintf(out, "warning: user %s does not exist on this system (maintainer of ",
				v[i].user);
			for (k = i; k < j; k++)
				fprintf(out, "%s%s", k > i ? ", " : "", v[k].module);
			fputs(")\n", out);
			warnings++;
		}
		i = j;
	}
	return warnings;
}

static unsigned print_release_team(FILE *out, const struct policy_settings *s)
{
	const char *const *u;
	unsigned warnings = 0;

	fputs("release team:", out);
	if (s->release_team_users == NULL && s->release_team_group == NULL)
		fputs(" none (nobody may create new modules)", out);
	for (u = s->release_team_users; u != NULL && *u != NULL; u++)
		fprintf(out, " %s", *u);
	if (s->release_team_group != NULL)
		fprintf(out, "%sgroup %s", s->release_team_users ? "; " : " ",
			s->release_team_group);
	fputc('\n', out);
	for (u = s->release_team_users; u != NULL && *u != NULL; u++) {
		if (getpwnam(*u) == NULL) {
			fprintf(out, "warning: release team user %s does not exist on this system\n", *u);
			warnings++;
		}
	}
	if (s->release_team_group != NULL && getgrnam(s->release_team_group) == NULL) {
		fprintf(out, "warning: release team group %s does not exist on this system\n",
			s->release_team_group);
		warnings++;
	}
	return warnings;
}

static void print_modules_summary(FILE *out, const struct policy *p, const char *config_name)
{
	size_t i, from_doap = 0, open = 0, overrides = 0;

	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (strcmp(m->source, config_name) != 0)
			from_doap++;
		open += m->open;
		overrides += m->overrides_doap;
	}
	fprintf(out, "modules: %zu (%zu with maintainers from DOAP, %zu from %s; %zu open)\n",
		policy_module_count(p), from_doap, policy_module_count(p) - from_doap,
		config_name, open);
	fputs("open modules:", out);
	for (i = 0; i < policy_module_count(p); i++)
		if (policy_module_at(p, i)->open)
			fprintf(out, " %s", policy_module_at(p, i)->name);
	fputs(open == 0 ? " none\n" : "\n", out);
	fprintf(out, "explicit entries overriding DOAP: %zu\n", overrides);
	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		size_t j;
		if (!m->overrides_doap)
			continue;
		fprintf(out, "  %s: maintainers from %s (", m->name, m->source);
		for (j = 0; m->maintainers[j] != NULL; j++)
			fprintf(out, "%s%s", j ? ", " : "", m->maintainers[j]);
		fprintf(out, "%s) replace those of %s.doap\n", m->open ? "; open" : "", m->name);
	}
}

unsigned report_check(FILE *out, const struct policy *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct pair *pairs;
	unsigned warnings;
	size_t n = 0;

	pairs = maintainer_pairs(p, &n);
	if (pairs == NULL) {
		fputs("warning: out of memory, users not checked\n", out);
		return 1;
	}
	fprintf(out, "%s: valid\n", path);
	print_modules_summary(out, p, slash ? slash + 1 : path);
	fprintf(out, "maintainers: %zu distinct users\n", count_distinct(pairs, n));
	warnings = print_release_team(out, policy_settings(p));
	warnings += warn_unknown_users(out, pairs, n);
	free(pairs);
	return warnings;
}

enum policy_basis report_explain(FILE *out, const struct policy *p, const char *user,
				 enum policy_action action, const char *module)
{
	char why[1024];
	enum policy_basis b = policy_may(p, user, action, module, why, sizeof(why));

	fprintf(out, "%s: %s\n", b == POLICY_DENY ? "refused" : "allowed", why);
	return b;
}

size_t report_modules(FILE *out, const struct policy *p, const char *user)
{
	char why[1024];
	size_t i, count = 0;

	for (i = 0; i < policy_module_count(p); i++) {
		const char *name = policy_module_at(p, i)->name;
		if (policy_may(p, user, POLICY_INSTALL, name, why, sizeof(why)) == POLICY_DENY)
			continue;
		fprintf(out, "%s\t%s\n", name, why);
		count++;
	}
	if (policy_is_release_team(p, user)) {
		fprintf(out, "(new modules)\t%s is in the release team, which may create new modules\n",
			user);
		count++;
	}
	return count;
}
