/*
 * The schema of postern.yaml and of the generated DOAP module file
 * (docs/POLICY.md). Every key is known, every value is checked for type and
 * sense where it is read; anything else is an error with its position, so a
 * typo can never silently turn into a default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_schema.h"
#include "schema_ci.h"
#include "schema_sections.h"
#include "schema_util.h"
#include "text.h"

#define STRUCT_OF(target) ((struct policy_settings *)(target))

/* paths */

static int read_incoming(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "paths.incoming", &STRUCT_OF(t)->incoming);
}

static int read_tree(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "paths.tree", &STRUCT_OF(t)->tree);
}

static int read_state(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "paths.state", &STRUCT_OF(t)->state);
}

static int read_socket(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "paths.socket", &STRUCT_OF(t)->socket);
}

static int read_logins(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "paths.logins", &STRUCT_OF(t)->logins);
}

static int read_paths(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "incoming", read_incoming },
		{ "tree", read_tree },
		{ "state", read_state },
		{ "socket", read_socket },
		{ "logins", read_logins },
	};

	return schema_walk(c, v, "paths", keys, sizeof(keys) / sizeof(keys[0]), t);
}

/* release_team */

static int read_rt_group(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_group(c, v, "release_team.group", &STRUCT_OF(t)->release_team_group);
}

static int read_rt_users(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_user_list(c, v, "release_team.users", &STRUCT_OF(t)->release_team_users);
}

static int read_release_team(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "group", read_rt_group },
		{ "users", read_rt_users },
	};
	int rc = schema_walk(c, v, "release_team", keys, sizeof(keys) / sizeof(keys[0]), t);

	if (rc == 0 && v->count == 0)
		return schema_fail(c, v, "release_team: give a group, users, or both "
				   "(or leave release_team out)");
	return rc;
}

/* limits */

static int read_max_compressed(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_size(c, v, "limits.max_compressed", 1,
			   &STRUCT_OF(t)->limits.max_compressed);
}

static int read_max_uncompressed(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_size(c, v, "limits.max_uncompressed", 1,
			   &STRUCT_OF(t)->limits.max_uncompressed);
}

static int read_max_members(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_size(c, v, "limits.max_members", 1, &STRUCT_OF(t)->limits.max_members);
}

static int read_max_ratio(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "limits.max_ratio", 1, &STRUCT_OF(t)->limits.max_ratio);
}

static int read_time_limit(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "limits.time_limit", 1, &STRUCT_OF(t)->limits.time_limit);
}

/* Below this the checker cannot even start libarchive and its decompressors. */
#define CHECK_MEMORY_MIN (32ull << 20)

static int read_check_memory(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_size(c, v, "limits.check_memory", CHECK_MEMORY_MIN,
			   &STRUCT_OF(t)->limits.check_memory);
}

static int read_incoming_total(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_size(c, v, "limits.incoming_total", 1, &STRUCT_OF(t)->limits.incoming_total);
}

static int read_limits(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "max_compressed", read_max_compressed },
		{ "max_uncompressed", read_max_uncompressed },
		{ "max_members", read_max_members },
		{ "max_ratio", read_max_ratio },
		{ "time_limit", read_time_limit },
		{ "check_memory", read_check_memory },
		{ "incoming_total", read_incoming_total },
	};
	const struct upload_limits *l = &STRUCT_OF(t)->limits;
	int rc = schema_walk(c, v, "limits", keys, sizeof(keys) / sizeof(keys[0]), t);

	if (rc == 0 && l->max_uncompressed < l->max_compressed)
		return schema_fail(c, v, "limits: max_uncompressed (%llu) is smaller than "
				   "max_compressed (%llu)",
				   (unsigned long long)l->max_uncompressed,
				   (unsigned long long)l->max_compressed);
	if (rc == 0 && l->incoming_total < l->max_compressed)
		return schema_fail(c, v, "limits: incoming_total (%llu) is smaller than "
				   "max_compressed (%llu): one upload would not fit",
				   (unsigned long long)l->incoming_total,
				   (unsigned long long)l->max_compressed);
	return rc;
}

/* hooks */

static int read_hook_doap_change(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_argv(c, v, "hooks.doap_change", &STRUCT_OF(t)->hook_doap_change);
}

/* A user that something postern starts runs as: a plain name, never root. */
static int read_unprivileged_user(struct schema_ctx *c, const struct ynode *v, const char *key,
				  const char **out)
{
	int rc = schema_string(c, v, key, out);

	if (rc == 0 && (!name_is_user(*out) || strcmp(*out, "root") == 0))
		return schema_fail(c, v, "%s: '%s' is not a user name to run as (a plain name, "
				   "not root)", key, *out);
	return rc;
}

static int read_hook_doap_change_user(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_unprivileged_user(c, v, "hooks.doap_change_user",
				      &STRUCT_OF(t)->hook_doap_change_user);
}

static int read_hook_after_install(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_argv(c, v, "hooks.after_install", &STRUCT_OF(t)->hook_after_install);
}

static int read_hook_mirror_sync(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_argv(c, v, "hooks.mirror_sync", &STRUCT_OF(t)->hook_mirror_sync);
}

static int read_hooks(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "doap_change", read_hook_doap_change },
		{ "doap_change_user", read_hook_doap_change_user },
		{ "after_install", read_hook_after_install },
		{ "mirror_sync", read_hook_mirror_sync },
	};

	return schema_walk(c, v, "hooks", keys, sizeof(keys) / sizeof(keys[0]), t);
}

/* mail */

static int read_address(struct schema_ctx *c, const struct ynode *v, const char *what,
			const char **out)
{
	const char *at;
	int rc = schema_string(c, v, what, out);

	if (rc < 0)
		return rc;
	at = strchr(*out, '@');
	/* Handed to a mailer as an argument: no option look-alikes, no spaces. */
	if ((*out)[0] == '-' || strpbrk(*out, " \t,;<>\"'\\") != NULL || at == NULL ||
	    at == *out || at[1] == '\0' || strchr(at + 1, '@') != NULL)
		return schema_fail(c, v, "%s: '%s' is not a plain mail address (user@example.org)",
				   what, *out);
	return 0;
}

static int read_mail_to(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_address(c, v, "mail.to", &STRUCT_OF(t)->mail_to);
}

static int read_mail_from(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_address(c, v, "mail.from", &STRUCT_OF(t)->mail_from);
}

static int read_mail(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "to", read_mail_to },
		{ "from", read_mail_from },
	};

	return schema_walk(c, v, "mail", keys, sizeof(keys) / sizeof(keys[0]), t);
}

/* audit */

static int read_audit_on_failure(struct schema_ctx *c, const struct ynode *v, void *t)
{
	const char *word;
	int rc = schema_string(c, v, "audit.on_failure", &word);

	if (rc < 0)
		return rc;
	if (strcmp(word, "refuse") == 0)
		STRUCT_OF(t)->audit_on_failure = AUDIT_ON_FAILURE_REFUSE;
	else if (strcmp(word, "continue") == 0)
		STRUCT_OF(t)->audit_on_failure = AUDIT_ON_FAILURE_CONTINUE;
	else
		return schema_fail(c, v, "audit.on_failure: '%s' is neither refuse nor continue", word);
	return 0;
}

static int read_audit(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "on_failure", read_audit_on_failure },
	};

	return schema_walk(c, v, "audit", keys, sizeof(keys) / sizeof(keys[0]), t);
}

/* signatures */

static int read_sig_keyrings(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "signatures.keyrings", &STRUCT_OF(t)->signature_keyrings);
}

static int read_sig_require(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_bool(c, v, "signatures.require", &STRUCT_OF(t)->signature_require);
}

static int read_sig_max_age(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "signatures.max_age", 0, &STRUCT_OF(t)->signature_max_age);
}

static int read_signatures(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "keyrings", read_sig_keyrings },
		{ "require", read_sig_require },
		{ "max_age", read_sig_max_age },
	};

	return schema_walk(c, v, "signatures", keys, sizeof(keys) / sizeof(keys[0]), t);
}

/* top-level scalars */

static int read_doap_modules(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path(c, v, "doap_modules", &STRUCT_OF(t)->doap_modules);
}

static int read_doap_sources(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_path_list(c, v, "doap_sources", &STRUCT_OF(t)->doap_sources);
}

static int read_doap_parse_user(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return read_unprivileged_user(c, v, "doap_parse_user", &STRUCT_OF(t)->doap_parse_user);
}

static int read_delete_window(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "delete_window", 0, &STRUCT_OF(t)->delete_window);
}

static int read_mirror_sync_interval(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_uint(c, v, "mirror_sync_interval", 1, &STRUCT_OF(t)->mirror_sync_interval);
}

/* modules */

struct config_target {
	struct policy_settings *s;
	struct module_list *mods;
};

static int read_maintainers(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct module_entry *m = t;
	char what[NAME_MODULE_MAX + 32];

	snprintf(what, sizeof(what), "module %s: maintainers", m->m.name);
	if (v->kind == YNODE_SEQUENCE && v->count == 0) {
		m->has_maintainers = true;
		m->m.maintainers = arena_alloc(c->a, sizeof(*m->m.maintainers));
		return m->m.maintainers ? 0 : pst_fail(c->e, ENOMEM, "out of memory");
	}
	m->has_maintainers = true;
	return schema_user_list(c, v, what, &m->m.maintainers);
}

static int read_open(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct module_entry *m = t;

	m->has_open = true;
	return schema_bool(c, v, "open", &m->m.open);
}

static int read_version_dir(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct module_entry *m = t;
	int rc = schema_string(c, v, "version_dir", &m->m.version_dir);

	if (rc == 0 && strcmp(v->value, "major") != 0 && strcmp(v->value, "major.minor") != 0)
		return schema_fail(c, v, "version_dir: expected 'major' or 'major.minor', found '%s'",
				   v->value);
	return rc;
}

static int read_signature(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct module_entry *m = t;
	const char *word;
	int rc = schema_string(c, v, "signature", &word);

	if (rc < 0)
		return rc;
	if (strcmp(word, "required") == 0)
		m->m.signature = POLICY_SIGNATURE_REQUIRED;
	else if (strcmp(word, "optional") == 0)
		m->m.signature = POLICY_SIGNATURE_OPTIONAL;
	else
		return schema_fail(c, v, "module %s: signature: expected 'required' or 'optional', "
				   "found '%s'", m->m.name, word);
	return 0;
}

static int read_module_ci(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_module_ci(c, v, &((struct module_entry *)t)->m);
}

static int read_source(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct module_entry *m = t;
	int rc = schema_string(c, v, "source", &m->m.source);

	if (rc == 0 && (strchr(v->value, '/') != NULL || strlen(v->value) > NAME_MODULE_MAX + 16))
		return schema_fail(c, v, "source: expected a file name such as gtk.doap, found '%s'",
				   v->value);
	return rc;
}

/* A new, empty entry for the module named by key, at the end of l. */
static int module_list_add(struct module_list *l, struct schema_ctx *c, const struct ynode *key,
			   struct module_entry **out)
{
	struct module_entry *m;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct module_entry *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			return pst_fail(c->e, ENOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	m = &l->v[l->n++];
	memset(m, 0, sizeof(*m));
	m->m.name = key->value;
	m->line = key->line;
	m->col = key->col;
	m->file = c->name;
	*out = m;
	return 0;
}

static int read_module_map(struct schema_ctx *c, const struct ynode *v, struct module_list *mods,
			   const struct schema_key *keys, size_t nkeys)
{
	const struct ynode *k;
	struct module_entry *m = NULL;
	char what[NAME_MODULE_MAX + 16];
	int rc = schema_expect(c, v, YNODE_MAPPING, "modules");

	if (rc < 0)
		return rc;
	if (v->count / 2 > POLICY_MODULES_MAX)
		return schema_fail(c, v, "modules: more than %u modules", POLICY_MODULES_MAX);
	for (k = v->first; k != NULL && k->next != NULL; k = k->next->next) {
		if (k->kind != YNODE_SCALAR || !name_is_module(k->value))
			return schema_fail(c, k, "modules: '%s' is not a valid module name "
					   "(letters, digits and . _ + -, starting with a letter or digit)",
					   k->kind == YNODE_SCALAR ? k->value : "(not a word)");
		rc = module_list_add(mods, c, k, &m);
		if (rc < 0)
			return rc;
		snprintf(what, sizeof(what), "module %s", k->value);
		rc = schema_walk(c, k->next, what, keys, nkeys, m);
		if (rc < 0)
			return rc;
		if (m->has_maintainers && m->m.maintainers[0] == NULL && !m->m.open)
			return schema_fail(c, k, "module %s: the maintainer list is empty and the module "
					   "is not open (list maintainers or set open: true)", k->value);
		if (!m->has_maintainers && !m->has_open && m->m.version_dir == NULL &&
		    m->m.signature == POLICY_SIGNATURE_UNSET && m->m.nci == 0)
			return schema_fail(c, k, "module %s: the entry is empty (give maintainers, "
					   "open, version_dir, signature or ci)", k->value);
	}
	return 0;
}

static int read_modules(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "maintainers", read_maintainers },
		{ "open", read_open },
		{ "version_dir", read_version_dir },
		{ "signature", read_signature },
		{ "ci", read_module_ci },
	};

	return read_module_map(c, v, ((struct config_target *)t)->mods, keys,
			       sizeof(keys) / sizeof(keys[0]));
}

static int read_doap_module_map(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "maintainers", read_maintainers },
		{ "source", read_source },
	};
	struct module_list *mods = t;
	size_t first = mods->n;
	size_t i;
	int rc = read_module_map(c, v, mods, keys, sizeof(keys) / sizeof(keys[0]));

	for (i = first; rc == 0 && i < mods->n; i++) {
		struct module_entry *m = &mods->v[i];
		if (!m->has_maintainers || m->m.maintainers[0] == NULL || m->m.source == NULL)
			return pst_fail(c->e, EINVAL, "%s:%lu:%lu: module %s: a generated entry needs "
					"maintainers and source (run postern-policy import-doap again)",
					c->name, m->line, m->col, m->m.name);
	}
	return rc;
}

/* Settings readers get the settings; the modules reader needs the list too. */
#define SETTING(name, fn) \
	static int fn##_wrap(struct schema_ctx *c, const struct ynode *v, void *t) \
	{ return fn(c, v, ((struct config_target *)t)->s); }
SETTING(paths, read_paths)
SETTING(release_team, read_release_team)
SETTING(limits, read_limits)
SETTING(hooks, read_hooks)
SETTING(mail, read_mail)
SETTING(audit, read_audit)
SETTING(signatures, read_signatures)
SETTING(doap_modules, read_doap_modules)
SETTING(doap_sources, read_doap_sources)
SETTING(doap_parse_user, read_doap_parse_user)
SETTING(delete_window, read_delete_window)
SETTING(mirror_sync_interval, read_mirror_sync_interval)

static int read_ci_wrap(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_ci(c, v, ((struct config_target *)t)->s);
}

static int read_sections_wrap(struct schema_ctx *c, const struct ynode *v, void *t)
{
	return schema_sections(c, v, ((struct config_target *)t)->s);
}

static bool root_is_empty(const struct ynode *root)
{
	return schema_is_null(root);
}

int schema_config(struct schema_ctx *c, const struct ynode *root,
		  struct policy_settings *s, struct module_list *mods)
{
	static const struct schema_key keys[] = {
		{ "paths", read_paths_wrap },
		{ "release_team", read_release_team_wrap },
		{ "doap_modules", read_doap_modules_wrap },
		{ "doap_sources", read_doap_sources_wrap },
		{ "doap_parse_user", read_doap_parse_user_wrap },
		{ "modules", read_modules },
		{ "hooks", read_hooks_wrap },
		{ "limits", read_limits_wrap },
		{ "delete_window", read_delete_window_wrap },
		{ "mirror_sync_interval", read_mirror_sync_interval_wrap },
		{ "mail", read_mail_wrap },
		{ "audit", read_audit_wrap },
		{ "signatures", read_signatures_wrap },
		{ "ci", read_ci_wrap },
		{ "sections", read_sections_wrap },
	};
	struct config_target t = { s, mods };
	int rc;

	if (root_is_empty(root))
		return 0;
	rc = schema_walk(c, root, "top level", keys, sizeof(keys) / sizeof(keys[0]), &t);
	return rc < 0 ? rc : schema_ci_bindings_check(c, s, mods);
}

int schema_doap_modules(struct schema_ctx *c, const struct ynode *root,
			struct module_list *mods)
{
	static const struct schema_key keys[] = {
		{ "modules", read_doap_module_map },
	};

	if (root_is_empty(root))
		return 0;
	return schema_walk(c, root, "top level", keys, sizeof(keys) / sizeof(keys[0]), mods);
}
