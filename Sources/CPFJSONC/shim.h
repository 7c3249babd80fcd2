#ifndef CPFJSONC_SHIM_H
#define CPFJSONC_SHIM_H
#include <json-c/json.h>
#include <json-c/json_object_iterator.h>

// json_object_object_foreach is a macro Swift cannot import; these helpers walk an
// object's members in insertion order through json-c's public inline accessors.

/// The first member entry of a json-c object, or NULL when it has none.
static inline struct lh_entry *pf_json_object_first_entry(struct json_object *obj) {
    struct lh_table *table = json_object_get_object(obj);
    return table ? lh_table_head(table) : NULL;
}

/// The entry after `entry`, or NULL at the end.
static inline struct lh_entry *pf_json_entry_next(struct lh_entry *entry) {
    return lh_entry_next(entry);
}

/// The key of a member entry (a NUL-terminated C string).
static inline const char *pf_json_entry_key(struct lh_entry *entry) {
    return (const char *)lh_entry_k(entry);
}

/// The value of a member entry (NULL for JSON null).
static inline struct json_object *pf_json_entry_value(struct lh_entry *entry) {
    return (struct json_object *)lh_entry_v(entry);
}

#endif
