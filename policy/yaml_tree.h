/*
 * YAML text to a small tree of scalars, sequences and mappings, each node
 * carrying the line and column where it starts, for the schema checks in
 * policy_schema.c to report "FILE:LINE:COL: what is wrong".
 *
 * Only the plain data subset of YAML is accepted: one document, no anchors,
 * aliases or tags (an alias could make a small file describe a huge policy,
 * and a tag could make a string mean something else), no NUL bytes in
 * scalars, nesting at most YTREE_MAX_DEPTH deep.
 */
#ifndef POSTERN_POLICY_YAML_TREE_H
#define POSTERN_POLICY_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "errmsg.h"

#define YTREE_MAX_DEPTH 16

enum ynode_kind {
	YNODE_SCALAR,
	YNODE_SEQUENCE,
	YNODE_MAPPING,
};

struct ynode {
	enum ynode_kind kind;
	unsigned long line;          /* 1-based */
	unsigned long col;           /* 1-based */
	const char *value;           /* scalar text, NUL-terminated */
	bool plain;                  /* scalar written without quotes */
	size_t count;                /* children: items, or keys + values */
	struct ynode *first;         /* mapping children alternate key, value */
	struct ynode *next;
};

/*
 * Parse len bytes of buf. Nodes are allocated in a. An empty document gives
 * an empty mapping. Errors are "NAME:LINE:COL: what is wrong".
 */
int ytree_parse(const char *buf, size_t len, const char *name, struct arena *a,
		struct ynode **root, struct pst_err *e);

#endif
