/*
 * The postern.yaml schema: defaults, every key read into the right field,
 * and each kind of error reported as "FILE:LINE:COL: what is wrong" at the
 * right place, with no policy returned.
 *
 * Usage: test_policy_schema EXAMPLE_YAML
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "policy.h"
#include "policy_text.h"

static const char *example_path;

static void test_defaults(void **state)
{
	struct policy *p = parse_ok("");
	const struct policy_settings *s = policy_settings(p);

	(void)state;
	assert_string_equal(s->incoming, "/srv/postern/incoming");
	assert_string_equal(s->tree, "/srv/postern/pub");
	assert_string_equal(s->state, POSTERN_STATEDIR);
	assert_string_equal(s->socket, "/run/postern/installd.sock");
	assert_null(s->doap_modules);
	assert_null(s->doap_sources);
	assert_int_equal(s->limits.max_compressed, 2ull << 30);
	assert_int_equal(s->limits.max_uncompressed, 8ull << 30);
	assert_int_equal(s->limits.max_members, 200000);
	assert_int_equal(s->limits.max_ratio, 100);
	assert_int_equal(s->limits.time_limit, 600);
	assert_int_equal(s->limits.check_memory, 512ull << 20);
	assert_int_equal(s->delete_window, 86400);
	assert_int_equal(s->mirror_sync_interval, 300);
	assert_null(s->hook_doap_change);
	assert_null(s->hook_after_install);
	assert_null(s->hook_mirror_sync);
	assert_null(s->mail_to);
	assert_null(s->mail_from);
	assert_null(s->release_team_group);
	assert_null(s->release_team_users);
	assert_int_equal(s->audit_on_failure, AUDIT_ON_FAILURE_REFUSE);
	assert_string_equal(s->signature_keyrings, POSTERN_CONFDIR "/keyrings");
	assert_false(s->signature_require);
	assert_int_equal(policy_module_count(p), 0);
	policy_free(p);
}

static void test_every_key(void **state)
{
	static const char text[] =
		"paths:\n"
		"  incoming: /a/in\n  tree: /a/pub\n  state: /a/state\n  socket: /a/s.sock\n"
		"release_team:\n  group: release-team\n  users: [alice, bob]\n"
		"doap_modules: /a/state/doap-modules.yaml\n"
		"doap_sources: [/a/doap, /b/x.doap]\n"
		"modules:\n"
		"  gtk:\n    maintainers: [matthiasc]\n    version_dir: major.minor\n"
		"  gnome-common: {open: true}\n"
		"hooks:\n"
		"  doap_change: [/usr/local/bin/mail-maintainers, --quiet]\n"
		"  after_install: [/bin/true]\n"
		"  mirror_sync: [/usr/bin/rsync, -a, /a/pub/, 'mirror::pub']\n"
		"limits:\n  max_compressed: 1G\n  max_uncompressed: 4GiB\n  max_members: 1000\n"
		"  max_ratio: 50\n  time_limit: 60\n  check_memory: 1G\n"
		"delete_window: 0\n"
		"mirror_sync_interval: 60\n"
		"mail:\n  to: release@example.org\n  from: postern@example.org\n"
		"audit:\n  on_failure: continue\n";
	struct policy *p = parse_ok(text);
	const struct policy_settings *s = policy_settings(p);
	const struct policy_module *m;

	(void)state;
	assert_string_equal(s->incoming, "/a/in");
	assert_string_equal(s->tree, "/a/pub");
	assert_string_equal(s->state, "/a/state");
	assert_string_equal(s->socket, "/a/s.sock");
	assert_string_equal(s->release_team_group, "release-team");
	assert_string_equal(s->release_team_users[1], "bob");
	assert_null(s->release_team_users[2]);
	assert_string_equal(s->doap_modules, "/a/state/doap-modules.yaml");
	assert_string_equal(s->doap_sources[1], "/b/x.doap");
	assert_null(s->doap_sources[2]);
	assert_string_equal(s->hook_doap_change[1], "--quiet");
	assert_null(s->hook_doap_change[2]);
	assert_string_equal(s->hook_after_install[0], "/bin/true");
	assert_string_equal(s->hook_mirror_sync[3], "mirror::pub");
	assert_int_equal(s->limits.max_compressed, 1ull << 30);
	assert_int_equal(s->limits.max_uncompressed, 4ull << 30);
	assert_int_equal(s->limits.max_members, 1000);
	assert_int_equal(s->limits.max_ratio, 50);
	assert_int_equal(s->limits.time_limit, 60);
	assert_int_equal(s->limits.check_memory, 1ull << 30);
	assert_int_equal(s->delete_window, 0);
	assert_int_equal(s->mirror_sync_interval, 60);
	assert_string_equal(s->mail_to, "release@example.org");
	assert_string_equal(s->mail_from, "postern@example.org");
	assert_int_equal(s->audit_on_failure, AUDIT_ON_FAILURE_CONTINUE);
	m = policy_module_find(p, "gtk");
	assert_non_null(m);
	assert_string_equal(m->version_dir, "major.minor");
	assert_string_equal(m->source, "p.yaml");
	assert_false(m->open);
	assert_false(m->overrides_doap);
	m = policy_module_find(p, "gnome-common");
	assert_non_null(m);
	assert_true(m->open);
	assert_null(m->maintainers[0]);
	policy_free(p);
}

struct bad {
	const char *text;
	const char *error;
};

static const struct bad bad_inputs[] = {
	{ "paths:\n  tree: /a\n  trees: /b\n", "p.yaml:3:3: paths: unknown key 'trees'" },
	{ "colour: blue\n", "p.yaml:1:1: top level: unknown key 'colour'" },
	{ "paths:\n  tree: /a\n  tree: /b\n",
	  "p.yaml:3:3: paths: duplicate key 'tree' (first at line 2)" },
	{ "modules:\n  gtk: {open: true}\n  glib: {open: true}\n  gtk: {open: true}\n",
	  "p.yaml:4:3: modules: duplicate key 'gtk' (first at line 2)" },
	{ "modules:\n  gtk:\n    open: true\n    open: false\n",
	  "p.yaml:4:5: module gtk: duplicate key 'open' (first at line 3)" },
	{ "paths: /srv\n", "p.yaml:1:8: paths: expected a mapping, found a single value" },
	{ "paths:\n  tree: [/a]\n", "p.yaml:2:9: paths.tree: expected a single value, found a list" },
	{ "paths:\n  tree:\n", "p.yaml:2:8: paths.tree: expected a single value, found nothing" },
	{ "paths:\n  tree: srv/pub\n", "p.yaml:2:9: paths.tree: 'srv/pub' is not an absolute path" },
	{ "paths:\n  tree: /srv/../etc\n",
	  "p.yaml:2:9: paths.tree: '/srv/../etc' has a '.' or '..' component (write the path plainly)" },
	{ "modules:\n  gtk:\n    open: yes\n",
	  "p.yaml:3:11: open: expected true or false, found 'yes'" },
	{ "modules:\n  gtk:\n    open: \"true\"\n",
	  "p.yaml:3:11: open: expected true or false, found 'true'" },
	{ "modules:\n  -gtk:\n    open: true\n",
	  "p.yaml:2:3: modules: '-gtk' is not a valid module name (letters, digits and . _ + -, "
	  "starting with a letter or digit)" },
	{ "modules:\n  gtk/../x:\n    open: true\n",
	  "p.yaml:2:3: modules: 'gtk/../x' is not a valid module name (letters, digits and . _ + -, "
	  "starting with a letter or digit)" },
	{ "modules:\n  gtk:\n    maintainers: [otte, Matthias]\n",
	  "p.yaml:3:25: module gtk: maintainers: 'Matthias' is not a valid user name" },
	{ "modules:\n  gtk:\n    maintainers: [otte, otte]\n",
	  "p.yaml:3:25: module gtk: maintainers: 'otte' is listed twice" },
	{ "release_team:\n  users: [alice, '-rf']\n",
	  "p.yaml:2:18: release_team.users: '-rf' is not a valid user name" },
	{ "release_team:\n  group: 'wheel staff'\n",
	  "p.yaml:2:10: release_team.group: 'wheel staff' is not a valid group name" },
	{ "release_team: {}\n",
	  "p.yaml:1:15: release_team: give a group, users, or both (or leave release_team out)" },
	{ "modules:\n  gtk:\n    maintainers: []\n",
	  "p.yaml:2:3: module gtk: the maintainer list is empty and the module is not open "
	  "(list maintainers or set open: true)" },
	{ "modules:\n  gtk:\n    version_dir: major\n",
	  "p.yaml:2:3: module gtk: no maintainers and not open, and no generated DOAP entry for it "
	  "(list maintainers, set open: true, or import its DOAP file)" },
	{ "modules:\n  gtk: {}\n",
	  "p.yaml:2:3: module gtk: the entry is empty (give maintainers, open, version_dir, signature or ci)" },
	{ "modules:\n  gtk:\n    open: true\n    version_dir: minor\n",
	  "p.yaml:4:18: version_dir: expected 'major' or 'major.minor', found 'minor'" },
	{ "limits:\n  max_compressed: 2X\n",
	  "p.yaml:2:19: limits.max_compressed: expected a size in bytes such as 2147483648 or 2G, "
	  "found '2X'" },
	{ "limits:\n  max_compressed: 99999999999999999999\n",
	  "p.yaml:2:19: limits.max_compressed: expected a size in bytes such as 2147483648 or 2G, "
	  "found '99999999999999999999'" },
	{ "limits:\n  max_compressed: 20000000T\n",
	  "p.yaml:2:19: limits.max_compressed: expected a size in bytes such as 2147483648 or 2G, "
	  "found '20000000T'" },
	{ "limits:\n  max_compressed: 0\n", "p.yaml:2:19: limits.max_compressed: must be at least 1" },
	{ "limits:\n  max_compressed: 4G\n  max_uncompressed: 1G\n",
	  "p.yaml:2:3: limits: max_uncompressed (1073741824) is smaller than max_compressed "
	  "(4294967296)" },
	{ "limits:\n  time_limit: -5\n", "p.yaml:2:15: limits.time_limit: expected a whole number, found '-5'" },
	{ "limits:\n  check_memory: 1M\n",
	  "p.yaml:2:17: limits.check_memory: must be at least 33554432" },
	{ "limits:\n  check_memory: lots\n",
	  "p.yaml:2:17: limits.check_memory: expected a size in bytes such as 2147483648 or 2G, "
	  "found 'lots'" },
	{ "limits:\n  max_ratio: 1K\n", "p.yaml:2:14: limits.max_ratio: expected a whole number, found '1K'" },
	{ "delete_window: 1.5\n", "p.yaml:1:16: delete_window: expected a whole number, found '1.5'" },
	{ "mirror_sync_interval: 0\n", "p.yaml:1:23: mirror_sync_interval: must be at least 1" },
	{ "hooks:\n  doap_change: [mail-maintainers]\n",
	  "p.yaml:2:17: hooks.doap_change: the program 'mail-maintainers' must be an absolute path" },
	{ "hooks:\n  doap_change: /bin/true\n",
	  "p.yaml:2:16: hooks.doap_change: expected a list, found a single value" },
	{ "hooks:\n  doap_change: []\n",
	  "p.yaml:2:16: hooks.doap_change: the list is empty (list something or leave the key out)" },
	{ "hooks:\n  on_install: [/bin/true]\n", "p.yaml:2:3: hooks: unknown key 'on_install'" },
	{ "mail:\n  to: 'root; rm -rf /'\n",
	  "p.yaml:2:7: mail.to: 'root; rm -rf /' is not a plain mail address (user@example.org)" },
	{ "mail:\n  from: -froot@x\n",
	  "p.yaml:2:9: mail.from: '-froot@x' is not a plain mail address (user@example.org)" },
	{ "doap_sources: [/a, b]\n", "p.yaml:1:20: doap_sources: 'b' is not an absolute path" },
	{ "doap_modules: \"/a\\nb\"\n",
	  "p.yaml:1:15: doap_modules: control characters are not allowed" },
	{ "doap_modules: \"/a\\x85b\"\n",
	  "p.yaml:1:15: doap_modules: control characters are not allowed" },
	{ "doap_modules: \"/a\\0b\"\n", "p.yaml:1:15: NUL bytes are not allowed" },
	{ "a: &x /a\ndoap_modules: *x\n", "p.yaml:1:4: anchors and aliases are not allowed" },
	{ "doap_modules: !!str /a\n", "p.yaml:1:15: tags are not allowed" },
	{ "doap_modules: /a\n---\ndoap_modules: /b\n",
	  "p.yaml:2:1: only one YAML document is allowed" },
	{ "- a\n- b\n", "p.yaml:1:1: top level: expected a mapping, found a list" },
	{ "paths:\n  [tree]: /a\n", "p.yaml:2:3: paths: a key must be a single word" },
	{ "paths: {tree: /a\n", "p.yaml:2:1: did not find expected ',' or '}' while parsing a flow mapping" },
	{ "modules:\n\tgtk: {}\n",
	  "p.yaml:2:1: found character that cannot start any token while scanning for the next token" },
	{ "a: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]\n", "p.yaml:1:19: nested too deeply" },
	{ "audit:\n  on_failure: ignore\n",
	  "p.yaml:2:15: audit.on_failure: 'ignore' is neither refuse nor continue" },
	{ "audit:\n  on_failure: [refuse]\n",
	  "p.yaml:2:15: audit.on_failure: expected a single value, found a list" },
	{ "audit:\n  onfailure: continue\n", "p.yaml:2:3: audit: unknown key 'onfailure'" },
	{ "audit: continue\n", "p.yaml:1:8: audit: expected a mapping, found a single value" },
	{ "signatures:\n  keyrings: keys\n",
	  "p.yaml:2:13: signatures.keyrings: 'keys' is not an absolute path" },
	{ "signatures:\n  require: sometimes\n",
	  "p.yaml:2:12: signatures.require: expected true or false, found 'sometimes'" },
	{ "signatures:\n  keyring: /k\n", "p.yaml:2:3: signatures: unknown key 'keyring'" },
	{ "modules:\n  linux: {maintainers: [a], signature: yes}\n",
	  "p.yaml:2:40: module linux: signature: expected 'required' or 'optional', found 'yes'" },
	{ "ci:\n  issuers:\n    gl: {issuer: http://gl.example, audience: https://r, jwks: /j}\n",
	  "p.yaml:3:18: ci.issuers: issuer: 'http://gl.example' is not an https:// URL (tokens "
	  "carry it exactly)" },
	{ "ci:\n  issuers:\n    gl: {issuer: https://gl.example, audience: https://r}\n",
	  "p.yaml:3:5: ci.issuers.gl: issuer, audience and jwks are all required" },
	{ "ci:\n  issuers:\n    gl: {issuer: https://g, audience: https://r, jwks: j.json}\n",
	  "p.yaml:3:56: ci.issuers: jwks: 'j.json' is not an absolute path" },
	{ "ci:\n  issuers:\n    gl: {issuer: https://g, audience: https://r, jwks: /j, kind: gitea}\n",
	  "p.yaml:3:66: ci.issuers: kind: expected 'gitlab' or 'github', found 'gitea'" },
	{ "ci:\n  listen: 8471\n",
	  "p.yaml:2:11: ci.listen: expected ADDR:PORT or an absolute socket path, found '8471'" },
	{ "ci:\n  issuers:\n    gl: {issuer: https://g, audience: https://r, jwks: /j}\n"
	  "modules:\n  gtk:\n    maintainers: [a]\n    ci: [{issuer: gh, project: GNOME/gtk}]\n",
	  "p.yaml:7:10: module gtk: ci: issuer gh is not under ci.issuers (declare it, or fix the "
	  "name)" },
	{ "modules:\n  gtk:\n    maintainers: [a]\n    ci: [{issuer: gl, project: ../gtk}]\n",
	  "p.yaml:4:32: ci: project: '../gtk' is not a project path such as GNOME/gtk" },
	{ "modules:\n  gtk:\n    maintainers: [a]\n    ci: [{project: GNOME/gtk}]\n",
	  "p.yaml:4:10: module gtk: ci: each entry needs issuer and project" },
	{ "modules:\n  gtk:\n    maintainers: [a]\n    ci: [{issuer: gl, project: G/g, ref: x}]\n",
	  "p.yaml:4:37: module gtk: ci: unknown key 'ref'" },
	{ "sections: [binaries]\n", "p.yaml:1:11: sections: expected a mapping, found a list" },
	{ "sections: {}\n",
	  "p.yaml:1:11: sections: between 1 and 32 sections" },
	{ "sections:\n  Binaries: {files: ['*.zip'], uploaders: open}\n",
	  "p.yaml:2:3: sections: 'Binaries' is not a plain section name (a lower-case letter, then "
	  "lower-case letters, digits, '_' and '-', at most 32 bytes)" },
	{ "sections:\n  ../bin: {files: ['*.zip'], uploaders: open}\n",
	  "p.yaml:2:3: sections: '../bin' is not a plain section name (a lower-case letter, then "
	  "lower-case letters, digits, '_' and '-', at most 32 bytes)" },
	{ "sections:\n  abcdefghijabcdefghijabcdefghijabc: {files: ['*.zip'], uploaders: open}\n",
	  "p.yaml:2:3: sections: 'abcdefghijabcdefghijabcdefghijabc' is not a plain section name (a "
	  "lower-case letter, then lower-case letters, digits, '_' and '-', at most 32 bytes)" },
	{ "sections:\n  sources: {files: ['*.zip'], uploaders: open}\n",
	  "p.yaml:2:3: sections: 'sources' is the built-in section of source tarballs (it needs no "
	  "entry): choose another name" },
	{ "sections:\n  log: {files: ['*.zip'], uploaders: open}\n",
	  "p.yaml:2:3: sections: 'log' is the tree's release log, <tree>/log/: choose another name" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: open}\n  bin: {files: ['*.msi'], uploaders: open}\n",
	  "p.yaml:3:3: sections: duplicate key 'bin' (first at line 2)" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: open, mode: 0644}\n",
	  "p.yaml:2:44: sections.bin: unknown key 'mode'" },
	{ "sections:\n  bin: {files: ['*.zip']}\n",
	  "p.yaml:2:3: sections.bin: files and uploaders are both required" },
	{ "sections:\n  bin: {uploaders: open}\n",
	  "p.yaml:2:3: sections.bin: files and uploaders are both required" },
	{ "sections:\n  bin: {files: [], uploaders: open}\n",
	  "p.yaml:2:16: sections.bin.files: the list is empty (list the files it takes, such as "
	  "\"*.zip\")" },
	{ "sections:\n  bin: {files: '*.zip', uploaders: open}\n",
	  "p.yaml:2:16: sections.bin.files: expected a list, found a single value" },
	{ "sections:\n  bin: {files: ['*.zip', '*.tar/xz'], uploaders: open}\n",
	  "p.yaml:2:26: sections.bin.files: '*.tar/xz' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['*.z*p'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: '*.z*p' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['*.z?p'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: '*.z?p' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['gtk-*.zip'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: 'gtk-*.zip' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['*.'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: '*.' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['*..zip'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: '*..zip' is not a suffix pattern such as \"*.zip\" "
	  "(\"*.\", then letters, digits, '.', '-' and '_', at most 32 bytes)" },
	{ "sections:\n  bin: {files: ['*.abcdefghijabcdefghijabcdefghijabc'], uploaders: open}\n",
	  "p.yaml:2:17: sections.bin.files: '*.abcdefghijabcdefghijabcdefghijabc' is not a suffix "
	  "pattern such as \"*.zip\" (\"*.\", then letters, digits, '.', '-' and '_', at most 32 "
	  "bytes)" },
	{ "sections:\n  bin: {files: ['*.zip', '*.msi', '*.zip'], uploaders: open}\n",
	  "p.yaml:2:35: sections.bin.files: '*.zip' is listed twice" },
	{ "sections:\n  bin: {files: [*.zip], uploaders: open}\n",
	  "p.yaml:2:18: did not find expected alphabetic or numeric character while scanning an "
	  "alias (quote a value that starts with '*', such as \"*.zip\")" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: everyone}\n",
	  "p.yaml:2:38: sections.bin.uploaders: expected maintainers, release_team, open or "
	  "{group: NAME}, found 'everyone'" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: [maintainers]}\n",
	  "p.yaml:2:38: sections.bin.uploaders: expected maintainers, release_team, open or "
	  "{group: NAME}, found a list" },
	{ "sections:\n  bin:\n    files: ['*.zip']\n    uploaders:\n",
	  "p.yaml:4:15: sections.bin.uploaders: expected maintainers, release_team, open or "
	  "{group: NAME}, found nothing" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: {}}\n",
	  "p.yaml:2:38: sections.bin.uploaders: name the group: {group: NAME}" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: {group: 'wheel staff'}}\n",
	  "p.yaml:2:46: sections.bin.uploaders.group: 'wheel staff' is not a valid group name" },
	{ "sections:\n  bin: {files: ['*.zip'], uploaders: {user: alice}}\n",
	  "p.yaml:2:39: sections.bin.uploaders: unknown key 'user'" },
};

static void test_ci(void **state)
{
	static const char text[] =
		"ci:\n  listen: 127.0.0.1:8471\n  issuers:\n"
		"    gitlab: {issuer: https://gitlab.gnome.org, audience: https://master.gnome.org,\n"
		"             jwks: /etc/postern/ci/gitlab.jwks}\n"
		"    github: {issuer: https://token.actions.githubusercontent.com,\n"
		"             audience: https://master.gnome.org, jwks: /etc/postern/ci/github.jwks,\n"
		"             kind: github, max_token_lifetime: 600}\n"
		"modules:\n"
		"  gtk:\n    maintainers: [otte]\n"
		"    ci: [{issuer: gitlab, project: GNOME/gtk}, {issuer: github, project: gnome/gtk}]\n"
		"  glib: {maintainers: [pwithnall]}\n";
	const struct policy_ci_issuer *gl, *gh;
	struct policy *p = parse_ok(text);

	(void)state;
	assert_string_equal(policy_settings(p)->ci_listen, "127.0.0.1:8471");
	gl = policy_ci_issuer_find(p, "gitlab");
	gh = policy_ci_issuer_find(p, "github");
	assert_non_null(gl);
	assert_non_null(gh);
	assert_null(policy_ci_issuer_find(p, "gitea"));
	assert_string_equal(gl->issuer, "https://gitlab.gnome.org");
	assert_string_equal(gl->audience, "https://master.gnome.org");
	assert_string_equal(gl->jwks, "/etc/postern/ci/gitlab.jwks");
	assert_int_equal(gl->forge, POLICY_CI_GITLAB);
	assert_int_equal(gl->max_lifetime, 3600);
	assert_int_equal(gh->forge, POLICY_CI_GITHUB);
	assert_int_equal(gh->max_lifetime, 600);
	assert_true(policy_ci_may(p, "gitlab", "GNOME/gtk", "gtk"));
	assert_true(policy_ci_may(p, "github", "gnome/gtk", "gtk"));
	assert_false(policy_ci_may(p, "gitlab", "gnome/gtk", "gtk"));     /* byte for byte */
	assert_false(policy_ci_may(p, "github", "GNOME/gtk", "gtk"));     /* the other issuer's */
	assert_false(policy_ci_may(p, "gitlab", "GNOME/gtk", "glib"));    /* no ci list */
	assert_false(policy_ci_may(p, "gitlab", "GNOME/gtk", "unknown"));
	assert_false(policy_ci_may(p, "gitea", "GNOME/gtk", "gtk"));
	assert_false(policy_ci_may(NULL, "gitlab", "GNOME/gtk", "gtk"));
	/* CI adds a way to release; the humans stay. */
	assert_int_equal(policy_may(p, "otte", POLICY_INSTALL, "gtk", NULL, 0), POLICY_MAINTAINER);
	policy_free(p);
}

static void test_signatures(void **state)
{
	static const char text[] =
		"signatures:\n  keyrings: /etc/k\n"
		"modules:\n"
		"  linux: {maintainers: [torvalds], signature: required}\n"
		"  gtk: {maintainers: [a], signature: optional}\n"
		"  glib: {maintainers: [a]}\n"
		"  gnome-shell: {signature: required}\n";
	static const char generated[] =
		"modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
		"    maintainers: [fmuellner]\n";
	static const char strict[] =
		"signatures: {require: true}\nmodules:\n  gtk: {maintainers: [a], signature: optional}\n";
	struct policy *p = NULL;
	struct pst_err e;

	(void)state;
	if (policy_parse_merged(text, strlen(text), "p.yaml", generated, strlen(generated),
				"d.yaml", &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_string_equal(policy_settings(p)->signature_keyrings, "/etc/k");
	assert_true(policy_signature_required(p, "linux"));
	assert_false(policy_signature_required(p, "gtk"));
	assert_false(policy_signature_required(p, "glib"));
	assert_false(policy_signature_required(p, "unknown-module"));
	/* An entry with only signature: keeps the DOAP maintainers. */
	assert_true(policy_signature_required(p, "gnome-shell"));
	assert_string_equal(policy_module_find(p, "gnome-shell")->maintainers[0], "fmuellner");
	policy_free(p);

	p = parse_ok(strict);
	assert_true(policy_signature_required(p, "gtk"));
	assert_true(policy_signature_required(p, "unknown-module"));
	policy_free(p);
	assert_true(policy_signature_required(NULL, "gtk"));
}

static void test_errors_have_position(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		char label[32];

		snprintf(label, sizeof(label), "input %zu", i);
		parse_fails(label, bad_inputs[i].text, bad_inputs[i].error);
	}
}

static void test_generated_file_schema(void **state)
{
	static const struct bad bad_doap[] = {
		{ "modules:\n  gtk:\n    maintainers: [a]\n",
		  "d.yaml:2:3: module gtk: a generated entry needs maintainers and source "
		  "(run postern-policy import-doap again)" },
		{ "modules:\n  gtk:\n    source: gtk.doap\n    maintainers: [a]\n    open: true\n",
		  "d.yaml:5:5: module gtk: unknown key 'open'" },
		{ "modules:\n  gtk:\n    source: ../gtk.doap\n    maintainers: [a]\n",
		  "d.yaml:3:13: source: expected a file name such as gtk.doap, found '../gtk.doap'" },
		{ "release_team: {users: [a]}\n", "d.yaml:1:1: top level: unknown key 'release_team'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_doap) / sizeof(bad_doap[0]); i++) {
		struct policy *p = NULL;
		struct pst_err e = { "" };
		int rc = policy_parse_merged("", 0, "p.yaml", bad_doap[i].text,
					     strlen(bad_doap[i].text), "d.yaml", &p, &e);
		if (rc == 0 || strcmp(e.msg, bad_doap[i].error) != 0)
			fail_msg("input %zu: got '%s', expected '%s'", i, e.msg, bad_doap[i].error);
		assert_null(p);
	}
}

static void test_example_config(void **state)
{
	static const char generated[] =
		"modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
		"    maintainers: [fmuellner]\n";
	char *buf = malloc(65536);
	struct policy *p = NULL;
	struct pst_err e;
	size_t len;
	FILE *f = fopen(example_path, "re");

	(void)state;
	assert_non_null(f);
	assert_non_null(buf);
	len = fread(buf, 1, 65535, f);
	fclose(f);
	if (policy_parse_merged(buf, len, example_path, generated, strlen(generated),
				"doap-modules.yaml", &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_non_null(policy_module_find(p, "gtk"));
	assert_non_null(policy_settings(p)->hook_doap_change);
	assert_string_equal(policy_settings(p)->signature_keyrings, "/etc/postern/keyrings");
	assert_true(policy_signature_required(p, "linux"));
	assert_false(policy_signature_required(p, "gtk"));
	policy_free(p);
	free(buf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_errors_have_position),
		cmocka_unit_test(test_ci),
		cmocka_unit_test(test_generated_file_schema),
		cmocka_unit_test(test_example_config),
		cmocka_unit_test(test_signatures),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_policy_schema EXAMPLE_YAML\n");
		return 2;
	}
	example_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
