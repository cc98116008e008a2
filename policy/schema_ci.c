/* postern.yaml's ci settings and module ci lists (schema_ci.h). */
#include "schema_ci.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "text.h"

/* The issuer its keys are read into. */
struct issuer_read {
	struct policy_ci_issuer *is;
};

static int read_https(struct schema_ctx *c, const struct ynode *v, const char *what,
		      const char **out)
{
	int rc = schema_string(c, v, what, out);

	if (rc == 0 && (strncmp(*out, "https://", 8) != 0 || strlen(*out) <= 8 ||
			strpbrk(*out, " \t") != NULL))
		return schema_fail(c, v, "%s: '%s' is not an https:// URL (tokens carry it exactly)",
				   what, *out);
	return rc;
}

static int read_issuer_url(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_https(c, v, "ci.issuers: issuer", &((struct issuer_read *)t)->is->issuer);
}

static int read_audience(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_https(c, v, "ci.issuers: audience", &((struct issuer_read *)t)->is->audience);
}

static int read_jwks(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "ci.issuers: jwks", &((struct issuer_read *)t)->is->jwks);
}

static int read_kind(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct policy_ci_issuer *is = ((struct issuer_read *)t)->is;
	const char *word;
	int rc = schema_string(c, v, "ci.issuers: kind", &word);

	if (rc < 0)
		return rc;
	if (strcmp(word, "gitlab") == 0)
		is->forge = POLICY_CI_GITLAB;
	else if (strcmp(word, "github") == 0)
		is->forge = POLICY_CI_GITHUB;
	else
		return schema_fail(c, v, "ci.issuers: kind: expected 'gitlab' or 'github', found '%s'",
				   word);
	return 0;
}

static int read_lifetime(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "ci.issuers: max_token_lifetime", 60,
			   &((struct issuer_read *)t)->is->max_lifetime);
}

static int read_one_issuer(struct schema_ctx *c, const struct ynode *k, struct policy_ci_issuer *is)
{
	static const struct schema_key keys[] = {
		{ "issuer", read_issuer_url },
		{ "audience", read_audience },
		{ "jwks", read_jwks },
		{ "kind", read_kind },
		{ "max_token_lifetime", read_lifetime },
	};
	struct issuer_read r = { is };
	char what[64];
	int rc;

	if (k->kind != YNODE_SCALAR || !name_is_user(k->value))
		return schema_fail(c, k, "ci.issuers: '%s' is not a plain name for an issuer",
				   k->kind == YNODE_SCALAR ? k->value : "(not a word)");
	snprintf(what, sizeof(what), "ci.issuers.%s", k->value);
	is->name = k->value;
	is->forge = POLICY_CI_GITLAB;
	is->max_lifetime = 3600;
	rc = schema_walk(c, k->next, what, keys, sizeof(keys) / sizeof(keys[0]), &r);
	if (rc == 0 && (is->issuer == NULL || is->audience == NULL || is->jwks == NULL))
		return schema_fail(c, k, "%s: issuer, audience and jwks are all required", what);
	return rc;
}

static int read_issuers(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct policy_settings *s = t;
	const struct ynode *k;
	size_t n = 0;
	int rc;
	struct policy_ci_issuer *v_out = schema_entries(c, v, "ci.issuers", "issuers",
							POLICY_CI_ISSUERS_MAX, sizeof(*v_out), &rc);

	if (v_out == NULL)
		return rc;
	for (k = v->first; rc == 0 && k != NULL && k->next != NULL; k = k->next->next)
		rc = read_one_issuer(c, k, &v_out[n++]);
	s->ci_issuers = v_out;
	s->ci_nissuers = n;
	return rc;
}

static int read_listen(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct policy_settings *s = t;
	int rc = schema_string(c, v, "ci.listen", &s->ci_listen);

	if (rc == 0 && s->ci_listen[0] != '/' && strrchr(s->ci_listen, ':') == NULL)
		return schema_fail(c, v, "ci.listen: expected ADDR:PORT or an absolute socket path, "
				   "found '%s'", s->ci_listen);
	return rc;
}

int schema_ci(struct schema_ctx *c, const struct ynode *v, struct policy_settings *s)
{
	static const struct schema_key keys[] = {
		{ "listen", read_listen },
		{ "issuers", read_issuers },
	};

	return schema_walk(c, v, "ci", keys, sizeof(keys) / sizeof(keys[0]), s);
}

/* GitLab project paths and GitHub repositories: group/name, plain characters. */
static bool project_is_plain(const char *p)
{
	size_t i, len = strlen(p);

	if (len == 0 || len > POLICY_CI_PROJECT_MAX || p[0] == '/' || p[len - 1] == '/' ||
	    strstr(p, "//") != NULL || strstr(p, "..") != NULL || strchr(p, '/') == NULL)
		return false;
	for (i = 0; i < len; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= '0' && p[i] <= '9') || strchr("._-/", p[i]) != NULL))
			return false;
	return true;
}

static int read_binding_issuer(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_string(c, v, "ci: issuer", &((struct policy_ci_binding *)t)->issuer);
}

static int read_binding_project(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct policy_ci_binding *b = t;
	int rc = schema_string(c, v, "ci: project", &b->project);

	if (rc == 0 && !project_is_plain(b->project))
		return schema_fail(c, v, "ci: project: '%s' is not a project path such as GNOME/gtk",
				   b->project);
	return rc;
}

int schema_module_ci(struct schema_ctx *c, const struct ynode *v, struct policy_module *m)
{
	static const struct schema_key keys[] = {
		{ "issuer", read_binding_issuer },
		{ "project", read_binding_project },
	};
	struct policy_ci_binding *b;
	const struct ynode *item;
	char what[NAME_MODULE_MAX + 16];
	size_t n = 0;
	int rc = schema_expect(c, v, YNODE_SEQUENCE, "ci");

	if (rc < 0)
		return rc;
	if (v->count == 0 || v->count > POLICY_CI_BINDINGS_MAX)
		return schema_fail(c, v, "module %s: ci: between 1 and %d entries", m->name,
				   POLICY_CI_BINDINGS_MAX);
	b = arena_alloc(c->a, v->count * sizeof(*b));
	if (b == NULL)
		return pst_fail(c->e, ENOMEM, "out of memory");
	memset(b, 0, v->count * sizeof(*b));
	snprintf(what, sizeof(what), "module %s: ci", m->name);
	for (item = v->first; rc == 0 && item != NULL; item = item->next, n++) {
		b[n].line = item->line;
		b[n].col = item->col;
		rc = schema_walk(c, item, what, keys, sizeof(keys) / sizeof(keys[0]), &b[n]);
		if (rc == 0 && (b[n].issuer == NULL || b[n].project == NULL))
			rc = schema_fail(c, item, "%s: each entry needs issuer and project", what);
	}
	m->ci = b;
	m->nci = n;
	return rc;
}

int schema_ci_bindings_check(struct schema_ctx *c, const struct policy_settings *s,
			     const struct module_list *mods)
{
	size_t i, j, k;

	for (i = 0; i < mods->n; i++) {
		const struct policy_module *m = &mods->v[i].m;
		for (j = 0; j < m->nci; j++) {
			for (k = 0; k < s->ci_nissuers; k++)
				if (strcmp(s->ci_issuers[k].name, m->ci[j].issuer) == 0)
					break;
			if (k == s->ci_nissuers)
				return pst_fail(c->e, EINVAL, "%s:%lu:%lu: module %s: ci: issuer %s is "
						"not under ci.issuers (declare it, or fix the name)",
						c->name, m->ci[j].line, m->ci[j].col, m->name,
						m->ci[j].issuer);
		}
	}
	return 0;
}
