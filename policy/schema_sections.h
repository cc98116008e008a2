/*
 * The sections part of postern.yaml (docs/POLICY.md, "sections"): the
 * sections beside sources/, each with the file patterns it takes and who
 * may upload, read with FILE:LINE:COL errors like every other key.
 */
#ifndef POSTERN_POLICY_SCHEMA_SECTIONS_H
#define POSTERN_POLICY_SCHEMA_SECTIONS_H

#include "schema_util.h"

int schema_sections(struct schema_ctx *c, const struct ynode *v, struct policy_settings *s);

#endif
