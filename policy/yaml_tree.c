/* libyaml events to a tree with positions; it never accepts anchors, aliases,
 * tags, NUL bytes or a second document, whatever the YAML spec allows. */
#include "yaml_tree.h"

#include <errno.h>
#include <string.h>
#include <yaml.h>

struct builder {
	const char *name;
	struct arena *a;
	struct ynode *stack[YTREE_MAX_DEPTH + 1];
	struct ynode *last[YTREE_MAX_DEPTH + 1];   /* last child of each open node */
	size_t depth;
	struct ynode *root;
	unsigned documents;
	struct pst_err *e;
};

static int fail_at(struct builder *b, const yaml_mark_t *m, const char *what)
{
	return pst_fail(b->e, EINVAL, "%s:%lu:%lu: %s", b->name,
			(unsigned long)m->line + 1, (unsigned long)m->column + 1, what);
}

static int parser_error(struct builder *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "invalid YAML";
	/* A section's unquoted *.zip reads as an alias: say what to write. */
	const char *hint = p->context != NULL && strcmp(p->context, "while scanning an alias") == 0
		? " (quote a value that starts with '*', such as \"*.zip\")" : "";

	if (p->error == YAML_MEMORY_ERROR)
		return pst_fail(b->e, ENOMEM, "%s: out of memory", b->name);
	if (p->context != NULL)
		return pst_fail(b->e, EINVAL, "%s:%lu:%lu: %s %s%s", b->name,
				(unsigned long)p->problem_mark.line + 1,
				(unsigned long)p->problem_mark.column + 1, problem, p->context, hint);
	return fail_at(b, &p->problem_mark, problem);
}

static int attach(struct builder *b, struct ynode *n)
{
	struct ynode *parent;

	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (b->last[b->depth - 1] == NULL)
		parent->first = n;
	else
		b->last[b->depth - 1]->next = n;
	b->last[b->depth - 1] = n;
	parent->count++;
	return 0;
}

static struct ynode *node_new(struct builder *b, enum ynode_kind kind, const yaml_mark_t *m)
{
	struct ynode *n = arena_alloc(b->a, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->kind = kind;
	n->line = (unsigned long)m->line + 1;
	n->col = (unsigned long)m->column + 1;
	return n;
}

static int refuse_decorations(struct builder *b, const yaml_mark_t *m,
			      const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor != NULL)
		return fail_at(b, m, "anchors and aliases are not allowed");
	if (tag != NULL)
		return fail_at(b, m, "tags are not allowed");
	return 0;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct ynode *n;
	int rc;

	/* libyaml reports a plain scalar's implicit tag even without '!'. */
	rc = refuse_decorations(b, m, ev->data.scalar.anchor,
				ev->data.scalar.plain_implicit || ev->data.scalar.quoted_implicit
					? NULL : ev->data.scalar.tag);
	if (rc < 0)
		return rc;
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length) != NULL)
		return fail_at(b, m, "NUL bytes are not allowed");
	n = node_new(b, YNODE_SCALAR, m);
	if (n == NULL)
		return pst_fail(b->e, ENOMEM, "%s: out of memory", b->name);
	n->value = arena_strndup(b->a, (const char *)ev->data.scalar.value,
				 ev->data.scalar.length);
	if (n->value == NULL)
		return pst_fail(b->e, ENOMEM, "%s: out of memory", b->name);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return attach(b, n);
}

static int on_open(struct builder *b, const yaml_event_t *ev, enum ynode_kind kind)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct ynode *n;
	int rc;

	if (kind == YNODE_SEQUENCE)
		rc = refuse_decorations(b, m, ev->data.sequence_start.anchor,
					ev->data.sequence_start.implicit ? NULL
					: ev->data.sequence_start.tag);
	else
		rc = refuse_decorations(b, m, ev->data.mapping_start.anchor,
					ev->data.mapping_start.implicit ? NULL
					: ev->data.mapping_start.tag);
	if (rc < 0)
		return rc;
	if (b->depth >= YTREE_MAX_DEPTH)
		return fail_at(b, m, "nested too deeply");
	n = node_new(b, kind, m);
	if (n == NULL)
		return pst_fail(b->e, ENOMEM, "%s: out of memory", b->name);
	rc = attach(b, n);
	if (rc < 0)
		return rc;
	b->stack[b->depth] = n;
	b->last[b->depth] = NULL;
	b->depth++;
	return 0;
}

/* Returns 1 at the end of the stream, 0 to go on, -errno on error. */
static int on_event(struct builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return 0;
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		if (++b->documents > 1)
			return fail_at(b, &ev->start_mark, "only one YAML document is allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		return fail_at(b, &ev->start_mark, "anchors and aliases are not allowed");
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_open(b, ev, YNODE_SEQUENCE);
	case YAML_MAPPING_START_EVENT:
		return on_open(b, ev, YNODE_MAPPING);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return 0;
	case YAML_NO_EVENT:
	default:
		return fail_at(b, &ev->start_mark, "unexpected YAML event");
	}
}

int ytree_parse(const char *buf, size_t len, const char *name, struct arena *a,
		struct ynode **root, struct pst_err *e)
{
	struct builder b = { .name = name, .a = a, .e = e };
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return pst_fail(e, ENOMEM, "%s: out of memory", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(&b, &parser);
			break;
		}
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc < 0)
		return rc;
	if (b.root == NULL) {
		yaml_mark_t start = { 0, 0, 0 };
		b.root = node_new(&b, YNODE_MAPPING, &start);
		if (b.root == NULL)
			return pst_fail(e, ENOMEM, "%s: out of memory", name);
	}
	*root = b.root;
	return 0;
}
