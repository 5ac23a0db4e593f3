/* The Codex reader's hot path in C: the rollout records that carry nearly every byte (tool calls
 * and their outputs in both channels, messages, and the event records `feed` drops) folded
 * straight from the line into a file's state.
 *
 * `fold_lines(on_message, data, start, end, state, sidechains)` folds lines in order until one
 * it does not handle (see `fold_run`), which the caller reads in Python: `session_meta`, the
 * oldest rollout shapes, a JSON-wrapped tool output, arguments that are not
 * a JSON object with a command, and anything unusual (see `_json_scan.h` and `_fold.h`). A message's text is
 * gathered here and handed to `on_message(state, role, parts, ts)`, which keeps or drops it as
 * `CodexSource._message` does (the mirror check hashes the whole text).
 */
#include "_fold.h"

#define MAX_PARTS 64
#define MAX_LIST 64

/* The first of these fields that holds a string or a list is the call's readable argument
 * (`_arguments`). */
static const char *const ARGUMENT_FIELDS[] = {"cmd", "command", "input", "path", "query"};
#define N_ARGUMENT_FIELDS 5

typedef struct {
    Val field[N_ARGUMENT_FIELDS];
    int count[N_ARGUMENT_FIELDS]; /* a list field's elements */
    Val item[N_ARGUMENT_FIELDS][MAX_LIST];
} Arguments;

typedef struct {
    Val type, timestamp, payload;
    /* the payload's fields (a response item, or an event) */
    Val p_type, role, content, name, call_id, id, arguments, input, action, output, message,
        item, aggregated_output, stdout_, stderr_, exit_code, success, cwd, model;
    /* an item_completed event's item */
    Val i_type, i_id, i_command, i_exit_code, i_aggregated_output, i_content;
    int commands; /* the item's command as a list */
    Val command[MAX_LIST];
    int parts; /* the text parts of a message's content (payload's or item's) */
    Val part_type[MAX_PARTS], part_text[MAX_PARTS];
    const Val *inline_from;     /* which of arguments, input, action filled inline_arguments */
    Arguments inline_arguments; /* arguments given as an object, not as JSON text */
} Record;

static PyObject *s_extra, *s_events, *s_last, *s_resulted, *s_sidechain, *s_shell,
    *s_exec_command, *s_meta, *s_cwd, *s_model;

/* ---- reading ---------------------------------------------------------------------------- */

/* A list whose string elements are kept (`count` < 0 when one is not a string, or there are
 * more than MAX_LIST: the list is then not handled). */
typedef struct {
    Val *items;
    int *count;
} List;

static int list_element(void *ctx, Cur *c) {
    List *list = ctx;
    Val element;
    if (!read_value(c, &element)) return 0;
    if (*list->count >= 0) {
        if (element.kind != V_STRING || *list->count >= MAX_LIST) *list->count = -1;
        else list->items[(*list->count)++] = element;
    }
    return 1;
}

static int read_list(Cur *c, Val *slot, Val *items, int *count) {
    List list = {items, count};
    return read_into(c, slot, &list, NULL, list_element);
}

/* A message's content: its text parts (one content a record: two are not a shape `feed`
 * knows). */
static int read_content(Cur *c, Record *r, Val *content) {
    Parts parts = {r->part_type, r->part_text, &r->parts, MAX_PARTS};
    if (is_container(c, '[') && (r->content.kind == V_ARRAY || r->i_content.kind == V_ARRAY))
        return 0;
    return read_into(c, content, &parts, NULL, part_element);
}

static int argument_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Arguments *a = ctx;
    for (int i = 0; i < N_ARGUMENT_FIELDS; i++)
        if (len == (Py_ssize_t)strlen(ARGUMENT_FIELDS[i]) &&
            memcmp(key, ARGUMENT_FIELDS[i], len) == 0)
            return read_list(c, &a->field[i], a->item[i], &a->count[i]);
    return skip_member(c);
}

static int item_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("type")) return read_once(c, &r->i_type);
    if (KEY_IS("id")) return read_once(c, &r->i_id);
    if (KEY_IS("exit_code")) return read_once(c, &r->i_exit_code);
    if (KEY_IS("aggregated_output")) return read_once(c, &r->i_aggregated_output);
    if (KEY_IS("command")) return read_list(c, &r->i_command, r->command, &r->commands);
    if (KEY_IS("content")) return read_content(c, r, &r->i_content);
    return skip_member(c);
}

static int payload_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("content")) return read_content(c, r, &r->content);
    if (KEY_IS("item")) return read_into(c, &r->item, r, item_member, NULL);
    if (KEY_IS("arguments") || KEY_IS("input") || KEY_IS("action")) {
        Val *target = KEY_IS("arguments") ? &r->arguments
                      : KEY_IS("input")   ? &r->input
                                          : &r->action;
        /* the fields of the first such object are kept; `call_argument` reads an object only
         * if it is the one kept */
        if (!is_container(c, '{') || r->inline_from != NULL) return read_once(c, target);
        r->inline_from = target;
        return read_into(c, target, &r->inline_arguments, argument_member, NULL);
    }
    if (KEY_IS("type")) return read_once(c, &r->p_type);
    if (KEY_IS("role")) return read_once(c, &r->role);
    if (KEY_IS("name")) return read_once(c, &r->name);
    if (KEY_IS("call_id")) return read_once(c, &r->call_id);
    if (KEY_IS("id")) return read_once(c, &r->id);
    if (KEY_IS("output")) return read_once(c, &r->output);
    if (KEY_IS("message")) return read_once(c, &r->message);
    if (KEY_IS("aggregated_output")) return read_once(c, &r->aggregated_output);
    if (KEY_IS("stdout")) return read_once(c, &r->stdout_);
    if (KEY_IS("stderr")) return read_once(c, &r->stderr_);
    if (KEY_IS("exit_code")) return read_once(c, &r->exit_code);
    if (KEY_IS("success")) return read_once(c, &r->success);
    if (KEY_IS("cwd")) return read_once(c, &r->cwd);
    if (KEY_IS("model")) return read_once(c, &r->model);
    return skip_member(c);
}

static int record_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("type")) return read_once(c, &r->type);
    if (KEY_IS("timestamp")) return read_once(c, &r->timestamp);
    if (KEY_IS("payload")) return read_into(c, &r->payload, r, payload_member, NULL);
    return skip_member(c);
}

static int read_record(Cur *c, Record *r) {
    skip_ws(c);
    if (!walk_object(c, r, record_member)) return 0;
    skip_ws(c);
    return c->p == c->end;
}

/* ---- values ----------------------------------------------------------------------------- */

static int is_one_of(const Val *v, const char *const *words) {
    for (; *words; words++)
        if (is_raw(v, *words)) return 1;
    return 0;
}

/* An exit code as `isinstance(code, int)` reads it: 1 and `*code` (a new reference, maybe
 * None), or 0 for a value Python should judge (a bool, a huge integer). */
static int int_or_none(const Val *v, PyObject **code) {
    if (v->kind == V_NUMBER) {
        const char *p = v->start;
        int negative = *p == '-';
        long long value = 0;
        p += negative;
        if (v->end - p > 18) return 0;
        for (; p < v->end; p++) {
            if (*p < '0' || *p > '9') { /* a float: not an int */
                *code = Py_None;
                Py_INCREF(Py_None);
                return 1;
            }
            value = value * 10 + (*p - '0');
        }
        *code = PyLong_FromLongLong(negative ? -value : value);
        return *code ? 1 : -1;
    }
    if (v->kind == V_TRUE || v->kind == V_FALSE) return 0;
    *code = Py_None;
    Py_INCREF(Py_None);
    return 1;
}

/* `" ".join(items)`, each decoded to at most `cap` characters. */
static PyObject *joined(const Val *items, int count, Py_ssize_t cap) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *text = decode(&items[i], cap);
        if (text == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, text);
    }
    PyObject *space = PyUnicode_FromString(" ");
    PyObject *out = space ? PyUnicode_Join(space, list) : NULL;
    Py_XDECREF(space);
    Py_DECREF(list);
    return out;
}

/* `_arguments` once the call's arguments are an object: the first field holding a list or a
 * string. NULL with no exception: not handled (a list of non-strings, or no such field, which
 * `_arguments` would serialise). */
static PyObject *argument_text(const Arguments *a) {
    Py_ssize_t cap = input_window + 1;
    for (int i = 0; i < N_ARGUMENT_FIELDS; i++) {
        const Val *v = &a->field[i];
        if (v->kind == V_ARRAY) return a->count[i] < 0 ? NULL : joined(a->item[i], a->count[i], cap);
        if (v->kind == V_STRING) return decode(v, cap);
    }
    return NULL;
}

/* JSON text unescaped into a new buffer (`*size` bytes), for arguments sent as a string. */
static char *unescaped(const Val *v, Py_ssize_t *size) {
    PyObject *text = decode(v, 0);
    if (text == NULL) return NULL;
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n);
    char *copy = utf8 ? PyMem_Malloc((size_t)n + 1) : NULL;
    if (copy != NULL) {
        memcpy(copy, utf8, (size_t)n);
        *size = n;
    } else if (utf8 != NULL) PyErr_NoMemory();
    Py_DECREF(text);
    return copy;
}

/* A function call's readable argument; NULL with no exception: not handled. */
static PyObject *call_argument(const Record *r) {
    const Val *raw = r->arguments.kind != V_ABSENT ? &r->arguments
                     : r->input.kind != V_ABSENT   ? &r->input
                                                   : &r->action;
    if (raw->kind == V_ABSENT || raw->kind == V_NULL) return PyUnicode_New(0, 0);
    if (raw->kind == V_OBJECT)
        return raw == r->inline_from ? argument_text(&r->inline_arguments) : NULL;
    if (raw->kind != V_STRING) return NULL;
    Py_ssize_t size = 0;
    char *json = unescaped(raw, &size);
    if (json == NULL) return NULL;
    Arguments *parsed = PyMem_Calloc(1, sizeof(Arguments));
    PyObject *out = NULL;
    if (parsed == NULL) PyErr_NoMemory();
    else {
        Cur c = {(const unsigned char *)json, (const unsigned char *)json + size, 0};
        skip_ws(&c);
        if (is_container(&c, '{') && walk_object(&c, parsed, argument_member)) {
            skip_ws(&c);
            if (c.p == c.end) out = argument_text(parsed);
        }
    }
    PyMem_Free(parsed);
    PyMem_Free(json);
    return out;
}

static int is_space(Py_UCS4 ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r') || (ch >= 0x1C && ch <= 0x1F); }

static int matches_at(int kind, const void *data, Py_ssize_t at, Py_ssize_t n, const char *word) {
    for (; *word; word++, at++)
        if (at >= n || PyUnicode_READ(kind, data, at) != (Py_UCS4)(unsigned char)*word) return 0;
    return 1;
}

/* `_EXIT.search(text, 0, 400)`: `(?:Process exited with code|Exit code:?)\s*(-?\d+)` within
 * the first 400 characters. 1 and `*code` set (None when no match); 0 when a character only
 * Python's Unicode classes can judge stands where the match is decided. */
static int tool_exit_code(PyObject *text, PyObject **code) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > 400) n = 400;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t at = 0; at < n; at++) {
        Py_ssize_t j;
        if (matches_at(kind, data, at, n, "Process exited with code")) j = at + 24;
        else if (matches_at(kind, data, at, n, "Exit code")) {
            j = at + 9;
            if (j < n && PyUnicode_READ(kind, data, j) == ':') j++;
        } else continue;
        while (j < n && PyUnicode_READ(kind, data, j) < 0x80 && is_space(PyUnicode_READ(kind, data, j)))
            j++;
        if (j < n && PyUnicode_READ(kind, data, j) >= 0x80) return 0;
        int negative = j < n && PyUnicode_READ(kind, data, j) == '-';
        Py_ssize_t first = j + negative, end = first;
        long long value = 0;
        while (end < n) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, end);
            if (ch >= 0x80) return 0;
            if (ch < '0' || ch > '9') break;
            if (end - first >= 18) return 0;
            value = value * 10 + (ch - '0');
            end++;
        }
        if (end == first) continue; /* no digits here: the search goes on */
        *code = PyLong_FromLongLong(negative ? -value : value);
        return *code ? 1 : -1;
    }
    *code = Py_None;
    Py_INCREF(Py_None);
    return 1;
}

/* `_output` for a plain-text output: the text after an `Output:` header in its first 600
 * characters, and the exit code its head reports. 1, 0 not handled, -1 error. */
static int tool_output(const Val *output, PyObject **body, PyObject **code) {
    if (output->kind == V_OBJECT || output->kind == V_ARRAY) return 0;
    if (output->kind != V_STRING) { /* `raw if isinstance(raw, str) else ""` */
        *body = PyUnicode_New(0, 0);
        *code = Py_None;
        Py_INCREF(Py_None);
        return *body ? 1 : -1;
    }
    PyObject *text = decode(output, 600 + 8 + result_window + 16);
    if (text == NULL) return -1;
    Py_ssize_t limit = PyUnicode_GET_LENGTH(text), marker = -2;
    if (limit > 0 && PyUnicode_READ_CHAR(text, 0) == '{') { /* maybe JSON-wrapped */
        Py_DECREF(text);
        return 0;
    }
    int status = tool_exit_code(text, code);
    if (status != 1) {
        Py_DECREF(text);
        return status;
    }
    PyObject *header = PyUnicode_FromString("Output:\n");
    if (header != NULL) marker = PyUnicode_Find(text, header, 0, limit < 600 ? limit : 600, 1);
    Py_XDECREF(header);
    if (marker == -2) {
        Py_DECREF(text);
        Py_CLEAR(*code);
        return -1;
    }
    if (marker >= 0) {
        *body = PyUnicode_Substring(text, marker + 8, limit);
        Py_DECREF(text);
    } else *body = text;
    if (*body == NULL) {
        Py_CLEAR(*code);
        return -1;
    }
    return 1;
}

/* ---- the fold --------------------------------------------------------------------------- */

typedef struct {
    Record *record;
    PyObject *state, *events, *extra, *on_message;
    int sidechains;
} Target;

static const char *const IGNORED_TOP[] = {"world_state", "token_usage_record", "compacted",
                                          "thread_settings", NULL};
static const char *const EVENTS[] = {"item_completed", "user_message", "agent_message",
                                     "exec_command_end", "patch_apply_end", "turn_aborted", NULL};
static const char *const CALLS[] = {"function_call", "custom_tool_call", "local_shell_call",
                                    NULL};
static const char *const OUTPUTS[] = {"function_call_output", "custom_tool_call_output", NULL};
static const char *const SILENT_ITEMS[] = {"reasoning", "web_search_call", "ghost_snapshot",
                                           "compaction", NULL};

/* What a record becomes, decided before anything is changed. */
typedef enum { DROP, MESSAGE, CALL, RESULT, CALL_AND_RESULT, INTERRUPT } Action;

typedef struct {
    Action action;
    PyObject *role;              /* MESSAGE: s_user or s_assistant (borrowed) */
    PyObject *parts;             /* MESSAGE: the text parts */
    PyObject *call_id, *name, *argument;  /* CALL */
    PyObject *excerpt, *is_error, *code;  /* RESULT (is_error borrowed) */
} Plan;

static void plan_clear(Plan *plan) {
    Py_CLEAR(plan->parts);
    Py_CLEAR(plan->call_id);
    Py_CLEAR(plan->name);
    Py_CLEAR(plan->argument);
    Py_CLEAR(plan->excerpt);
    Py_CLEAR(plan->code);
}

/* `_texts(content, kinds)` as a list; NULL with no exception: not handled. */
static PyObject *message_parts(const Record *r, const Val *content, const char *const *kinds) {
    if (content->kind == V_STRING) {
        PyObject *text = decode(content, 0);
        if (text == NULL) return NULL;
        PyObject *list = PyList_New(1);
        if (list == NULL) {
            Py_DECREF(text);
            return NULL;
        }
        PyList_SET_ITEM(list, 0, text);
        return list;
    }
    PyObject *list = PyList_New(0);
    if (list == NULL || content->kind != V_ARRAY) return list;
    for (int i = 0; i < r->parts; i++) {
        const Val *type = &r->part_type[i], *text = &r->part_text[i];
        if (type->kind == V_STRING && type->escaped) {
            Py_DECREF(list);
            return NULL;
        }
        if (text->kind != V_STRING || !is_one_of(type, kinds)) continue;
        PyObject *piece = decode(text, 0);
        if (piece == NULL || PyList_Append(list, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(piece);
    }
    return list;
}

static int plan_message(Plan *plan, const Record *r, PyObject *role, const Val *content,
                        const char *const *kinds) {
    plan->action = MESSAGE;
    plan->role = role;
    plan->parts = message_parts(r, content, kinds);
    return plan->parts ? 1 : PyErr_Occurred() ? -1 : 0;
}

/* A result's excerpt from optional text fields, decoded only as far as its window reads. */
static int plan_result(Plan *plan, const Val *call_id, PyObject *excerpt, PyObject *is_error,
                       PyObject *code) {
    plan->action = plan->action == CALL ? CALL_AND_RESULT : RESULT;
    plan->excerpt = excerpt;
    plan->is_error = is_error;
    plan->code = code;
    if (excerpt == NULL || code == NULL) return PyErr_Occurred() ? -1 : 0;
    if (plan->call_id == NULL && (plan->call_id = first_text(call_id, NULL, 0)) == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return 1;
}

static int plan_item(Plan *plan, const Record *r) {
    static const char *const USER_KINDS[] = {"input_text", NULL};
    static const char *const AGENT_KINDS[] = {"output_text", NULL};
    const Val *type = &r->p_type;
    if (type->kind != V_STRING || type->escaped) return 0;
    if (is_raw(type, "message")) {
        if (r->role.kind == V_STRING && r->role.escaped) return 0;
        if (is_raw(&r->role, "user")) return plan_message(plan, r, s_user, &r->content, USER_KINDS);
        if (is_raw(&r->role, "assistant"))
            return plan_message(plan, r, s_assistant, &r->content, AGENT_KINDS);
        return 1; /* a developer or system message */
    }
    if (is_one_of(type, CALLS)) {
        plan->action = CALL;
        if ((plan->call_id = first_text(&r->call_id, &r->id, 0)) == NULL ||
            (plan->argument = call_argument(r)) == NULL)
            return PyErr_Occurred() ? -1 : 0;
        if (truthy_text(&r->name) < 0) return 0;
        plan->name = truthy_text(&r->name) ? decode(&r->name, 0) : s_shell;
        if (plan->name == s_shell) Py_INCREF(s_shell);
        return plan->name ? 1 : -1;
    }
    if (is_one_of(type, OUTPUTS)) {
        PyObject *body = NULL, *code = NULL;
        int status = tool_output(&r->output, &body, &code);
        if (status != 1) return status;
        return plan_result(plan, &r->call_id, body, Py_None, code);
    }
    return is_one_of(type, SILENT_ITEMS) ? 1 : 0; /* an unknown item: Python counts it */
}

static int plan_completed(Plan *plan, const Record *r) {
    static const char *const USER_KINDS[] = {"text", NULL};
    static const char *const AGENT_KINDS[] = {"Text", "text", NULL};
    if (r->item.kind != V_OBJECT) return 1; /* `_completed` drops it */
    const Val *type = &r->i_type;
    if (type->kind == V_STRING && type->escaped) return 0;
    if (is_raw(type, "UserMessage"))
        return plan_message(plan, r, s_user, &r->i_content, USER_KINDS);
    if (is_raw(type, "AgentMessage"))
        return plan_message(plan, r, s_assistant, &r->i_content, AGENT_KINDS);
    if (!is_raw(type, "CommandExecution")) return 1;
    plan->action = CALL;
    if ((plan->call_id = first_text(&r->i_id, NULL, 0)) == NULL) return PyErr_Occurred() ? -1 : 0;
    if (r->i_command.kind == V_ARRAY)
        plan->argument = r->commands < 0 ? NULL : joined(r->command, r->commands, input_window + 1);
    else if (r->i_command.kind == V_STRING) plan->argument = decode(&r->i_command, input_window + 1);
    if (plan->argument == NULL) return PyErr_Occurred() ? -1 : 0;
    plan->name = s_exec_command;
    Py_INCREF(s_exec_command);
    PyObject *code = NULL;
    int status = int_or_none(&r->i_exit_code, &code);
    if (status != 1) return status;
    return plan_result(plan, &r->i_id, first_text(&r->i_aggregated_output, NULL, result_window + 1),
                       Py_None, code);
}

static int plan_event(Plan *plan, const Record *r) {
    const Val *type = &r->p_type;
    if (is_raw(type, "item_completed")) return plan_completed(plan, r);
    if (is_raw(type, "user_message") || is_raw(type, "agent_message")) {
        plan->action = MESSAGE;
        plan->role = is_raw(type, "user_message") ? s_user : s_assistant;
        plan->parts = PyList_New(0);
        if (plan->parts == NULL) return -1;
        if (r->message.kind != V_STRING) return 1; /* no text: dropped */
        PyObject *text = decode(&r->message, 0);
        int failed = text == NULL || PyList_Append(plan->parts, text) < 0;
        Py_XDECREF(text);
        return failed ? -1 : 1;
    }
    if (is_raw(type, "exec_command_end")) {
        int a = truthy_text(&r->aggregated_output), o = truthy_text(&r->stdout_),
            e = truthy_text(&r->stderr_);
        if (a < 0 || (!a && o < 0) || (!a && !o && e < 0)) return 0;
        const Val *chosen = a ? &r->aggregated_output : o ? &r->stdout_ : &r->stderr_;
        PyObject *code = NULL;
        int status = int_or_none(&r->exit_code, &code);
        if (status != 1) return status;
        return plan_result(plan, &r->call_id, first_text(chosen, NULL, result_window + 1), Py_None,
                           code);
    }
    if (is_raw(type, "patch_apply_end")) {
        int failed = r->success.kind == V_FALSE;
        Py_INCREF(Py_None);
        return plan_result(plan, &r->call_id,
                           first_text(failed ? &r->stderr_ : &r->stdout_, NULL, result_window + 1),
                           failed ? Py_True : Py_False, Py_None);
    }
    plan->action = INTERRUPT; /* turn_aborted */
    return 1;
}

/* `_tool`: the mirror state forgets the last message; a result whose call was just answered
 * (its output mirrored in the other channel) keeps no second copy of the text. */
static int add_tool(const Target *t, PyObject *event, int is_result, PyObject *call_id) {
    if (PyDict_SetItem(t->extra, s_last, Py_None) < 0) return -1;
    if (is_result) {
        PyObject *seen = PyDict_GetItemWithError(t->extra, s_resulted);
        if (seen == NULL && PyErr_Occurred()) return -1;
        if (seen != NULL) {
            int same = PyObject_RichCompareBool(seen, call_id, Py_EQ);
            if (same < 0) return -1;
            if (same) {
                PyObject *empty = PyUnicode_New(0, 0);
                if (empty == NULL) return -1;
                PyList_SetItem(event, 4, empty);
            }
        }
        if (PyDict_SetItem(t->extra, s_resulted, call_id) < 0) return -1;
    }
    return PyList_Append(t->events, event);
}


static int apply(const Target *t, Plan *plan, PyObject *ts) {
    switch (plan->action) {
    case DROP:
        return 1;
    case MESSAGE: {
        PyObject *done =
            PyObject_CallFunctionObjArgs(t->on_message, t->state, plan->role, plan->parts, ts, NULL);
        Py_XDECREF(done);
        return done ? 1 : -1;
    }
    case INTERRUPT:
        return event(t->events, 3, s_interrupt, ts, Py_None) ? -1 : 1;
    default:
        break;
    }
    if (plan->action == CALL || plan->action == CALL_AND_RESULT) {
        PyObject *argument = window(plan->argument, input_window);
        plan->argument = NULL;
        if (argument == NULL) return -1;
        PyObject *call = new_event(6, s_call, ts, Py_None, plan->call_id, plan->name, argument);
        Py_DECREF(argument);
        if (call == NULL) return -1;
        /* a CommandExecution's call is added as is; a response item's goes through `_tool` */
        int failed = plan->action == CALL ? add_tool(t, call, 0, NULL)
                                          : PyList_Append(t->events, call);
        Py_DECREF(call);
        if (failed) return -1;
    }
    if (plan->action == RESULT || plan->action == CALL_AND_RESULT) {
        PyObject *excerpt = window(plan->excerpt, result_window);
        plan->excerpt = NULL;
        if (excerpt == NULL) return -1;
        PyObject *result = new_event(7, s_result, ts, Py_None, plan->call_id, excerpt,
                                     plan->is_error, plan->code);
        Py_DECREF(excerpt);
        if (result == NULL) return -1;
        int failed = add_tool(t, result, 1, plan->call_id);
        Py_DECREF(result);
        if (failed) return -1;
    }
    return 1;
}

/* `meta[name] = value` as `FileState.set_meta` does for a text: a non-empty value, over a false
 * one unless `overwrite`. */
static int set_meta(PyObject *meta, PyObject *name, const Val *value, int overwrite) {
    if (value->kind != V_STRING || value->start == value->end) return 0;
    if (!overwrite) {
        PyObject *old = PyDict_GetItemWithError(meta, name);
        if (old == NULL && PyErr_Occurred()) return -1;
        int truth = old != NULL ? PyObject_IsTrue(old) : 0;
        if (truth) return truth < 0 ? -1 : 0;
    }
    PyObject *text = decode(value, 0);
    int failed = text == NULL || PyDict_SetItem(meta, name, text) < 0;
    Py_XDECREF(text);
    return failed ? -1 : 0;
}

/* A `turn_context` record: its working directory (when none is known yet) and its model. 1
 * folded, 0 not handled (a value of another type: Python's truth rules), -1 an exception. */
static int turn_context(const Target *t, const Record *r) {
    const Val *cwd = &r->cwd, *model = &r->model;
    if ((cwd->kind != V_ABSENT && cwd->kind != V_NULL && cwd->kind != V_STRING) ||
        (model->kind != V_ABSENT && model->kind != V_NULL && model->kind != V_STRING))
        return 0;
    PyObject *meta = PyObject_GetAttr(t->state, s_meta);
    if (meta == NULL) return -1;
    int status = -1;
    if (!PyDict_Check(meta))
        PyErr_SetString(PyExc_TypeError, "fold_lines: state.meta must be a dict");
    else if (set_meta(meta, s_cwd, cwd, 0) == 0 && set_meta(meta, s_model, model, 1) == 0)
        status = 1;
    Py_DECREF(meta);
    return status;
}

static int fold_one(void *ctx, const unsigned char *p, const unsigned char *end) {
    Target *t = ctx;
    Record *r = t->record;
    memset(r, 0, offsetof(Record, command));
    r->parts = 0;
    r->inline_from = NULL;
    memset(&r->inline_arguments, 0, sizeof(r->inline_arguments.field) +
                                         sizeof(r->inline_arguments.count));
    Cur c = {p, end, 0};
    if (!read_record(&c, r) || r->type.kind != V_STRING || r->type.escaped) return 0;
    if (is_one_of(&r->type, IGNORED_TOP)) return 1;
    int event_msg = is_raw(&r->type, "event_msg"), item = is_raw(&r->type, "response_item");
    int context = is_raw(&r->type, "turn_context");
    if (!(event_msg || item || context) || r->payload.kind != V_OBJECT) return 0;
    if (r->p_type.kind == V_STRING && r->p_type.escaped) return 0;
    if (event_msg) {
        if (r->p_type.kind != V_STRING) return 0;
        if (!is_one_of(&r->p_type, EVENTS)) return 1;
    }
    PyObject *side = PyDict_GetItemWithError(t->extra, s_sidechain);
    if (side == NULL && PyErr_Occurred()) return -1;
    if (side != NULL && !t->sidechains) {
        int truth = PyObject_IsTrue(side);
        if (truth) return truth < 0 ? -1 : 2;
    }
    double seconds = 0;
    if (r->timestamp.kind != V_ABSENT && r->timestamp.kind != V_NULL &&
        !iso_utc(&r->timestamp, &seconds))
        return 0;
    if (context) return turn_context(t, r);
    Plan plan = {DROP, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int status = item ? plan_item(&plan, r) : plan_event(&plan, r);
    if (status == 1) {
        PyObject *ts = r->timestamp.kind == V_STRING ? PyFloat_FromDouble(seconds) : Py_None;
        if (ts == Py_None) Py_INCREF(ts);
        status = ts ? apply(t, &plan, ts) : -1;
        Py_XDECREF(ts);
    }
    plan_clear(&plan);
    if (status < 0 && PyErr_Occurred()) return -1;
    PyErr_Clear();
    return status < 0 ? 0 : status;
}

/* fold_lines(on_message, data, start, end, state, sidechains): see `fold_run`. */
static PyObject *fold_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6 || !PyCallable_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "fold_lines(on_message, data: bytes, start: int, "
                                         "end: int, state: FileState, sidechains: bool)");
        return NULL;
    }
    Target t = {NULL, args[4], NULL, NULL, args[0], PyObject_IsTrue(args[5])};
    if (t.sidechains < 0) return NULL;
    t.events = PyObject_GetAttr(t.state, s_events);
    t.extra = t.events ? PyObject_GetAttr(t.state, s_extra) : NULL;
    PyObject *out = NULL;
    if (t.extra != NULL && (!PyList_Check(t.events) || !PyDict_Check(t.extra)))
        PyErr_SetString(PyExc_TypeError, "fold_lines: state.events must be a list and "
                                         "state.extra a dict");
    else if (t.extra != NULL && (t.record = PyMem_Malloc(sizeof(Record))) == NULL) PyErr_NoMemory();
    else if (t.extra != NULL) out = fold_run(args[1], args[2], args[3], fold_one, &t);
    PyMem_Free(t.record);
    Py_XDECREF(t.events);
    Py_XDECREF(t.extra);
    return out;
}

static PyMethodDef methods[] = {
    {"fold_lines", (PyCFunction)(void (*)(void))fold_lines, METH_FASTCALL,
     "fold_lines(on_message, data, start, end, state, sidechains) -> (next, line_start, "
     "line_end, sidechains_skipped): the lines of data[start:end] folded until one is not "
     "handled (line_start -1: all were)."},
    CONFIGURE_METHOD,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_codex_fast", "The Codex reader's hot path (see codex.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__codex_fast(void) {
    static PyObject **const names[] = {&s_extra, &s_events,       &s_last, &s_resulted,
                                       &s_sidechain, &s_shell, &s_exec_command, &s_meta,
                                       &s_cwd, &s_model};
    static const char *const texts[] = {"extra", "events",       "last", "resulted",
                                        "sidechain", "shell", "exec_command", "meta",
                                        "cwd", "model"};
    return create_module(&module_def, names, texts, 10);
}
