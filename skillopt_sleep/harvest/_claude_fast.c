/* The Claude Code reader's hot path in C: one transcript line folded straight into a file's
 * state, for the record shapes that carry nearly every byte of a transcript (an assistant turn
 * and a user record of tool results) and for a typed prompt, whose text is handed to the Python
 * function `claude._typed_prompt` (registered with `set_prompt`), the one copy of its rules.
 *
 * `fold(line, meta, events, sidechains)` returns 1 when it folded the line exactly as
 * `ClaudeSource.feed` would have, 2 for a sidechain record it skipped (the caller counts it), and
 * 0 when it did not handle the line: then nothing was changed and the caller takes the Python
 * path (orjson and `feed`), which stays the reference. Anything unusual is left to that path: a
 * typed prompt while no function is registered, another record type, an escaped key, a value of
 * an unexpected type, a timestamp that is not plain UTC ISO-8601, JSON that orjson might read
 * differently (a huge number, deep nesting, a lone surrogate) and any line that is not valid
 * JSON and UTF-8.
 *
 * The line is read once. Only the values `feed` reads are decoded; everything else is validated
 * and skipped, so a multi-KB tool output costs a scan, not a string. A tool result's text is
 * decoded only as far as its kept window reaches (see `configure`).
 */
#include "_fold.h"

#define MAX_BLOCKS 64
#define MAX_PARTS 32

/* The record types `feed` ignores (claude.py's `_IGNORED_TYPES`; a test holds them equal). */
static const char *const IGNORED_TYPES[] = {
    "system",          "summary",     "file-history-snapshot", "attachment", "queue-operation",
    "last-prompt",     "mode",        "permission-mode",       "progress",   "custom-title",
    "ai-title",        "tag",         "agent-name",            "pr-link",    "worktree-state",
    NULL};

static PyObject *s_session_id, *s_cwd, *s_git_branch, *s_model, *s_engine;
/* `_typed_prompt(text, ts, key) -> (event or None, engine)`; NULL: typed prompts are Python's. */
static PyObject *prompt_handler;

/* A flag read for its truth: -1 when its kind would need Python's truth rules. */
static int flag(const Val *v) {
    switch (v->kind) {
    case V_ABSENT:
    case V_NULL:
    case V_FALSE:
        return 0;
    case V_TRUE:
        return 1;
    default:
        return -1;
    }
}

static int starts_with_ascii(PyObject *text, const char *prefix) {
    Py_ssize_t n = (Py_ssize_t)strlen(prefix);
    if (PyUnicode_GET_LENGTH(text) < n) return 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)(unsigned char)prefix[i]) return 0;
    return 1;
}


typedef struct {
    Val type, text, id, name, tool_use_id, content, is_error, input_value;
    Val input[6]; /* command, file_path, pattern, url, query, prompt: `_tool_input`'s order */
    int element;  /* the kind of this content element (only an object has the fields above) */
    int parts;    /* text blocks of a tool result's content (`_text_of`) */
    Val part_type[MAX_PARTS], part_text[MAX_PARTS];
} Block;

typedef struct {
    Val type, is_sidechain, session_id, cwd, forked_from, git_branch, message, timestamp, uuid;
    Val is_meta, is_compact, is_visible_only, outcome;
    Val model, content;
    Val stdout_, interrupted, background;
    int nblocks; /* elements of an array content, whatever their kind */
    Block blocks[MAX_BLOCKS];
} Record;

static const char *const INPUT_FIELDS[6] = {"command", "file_path", "pattern", "url", "query",
                                            "prompt"};

static int input_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Block *b = ctx;
    for (int i = 0; i < 6; i++)
        if (len == (Py_ssize_t)strlen(INPUT_FIELDS[i]) && memcmp(key, INPUT_FIELDS[i], len) == 0)
            return read_once(c, &b->input[i]);
    return skip_member(c);
}

static int block_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Block *b = ctx;
    if (KEY_IS("type")) return read_once(c, &b->type);
    if (KEY_IS("text")) return read_once(c, &b->text);
    if (KEY_IS("id")) return read_once(c, &b->id);
    if (KEY_IS("name")) return read_once(c, &b->name);
    if (KEY_IS("tool_use_id")) return read_once(c, &b->tool_use_id);
    if (KEY_IS("is_error")) return read_once(c, &b->is_error);
    if (KEY_IS("content")) {
        Parts parts = {b->part_type, b->part_text, &b->parts, MAX_PARTS};
        return read_into(c, &b->content, &parts, NULL, part_element);
    }
    if (KEY_IS("input")) return read_into(c, &b->input_value, b, input_member, NULL);
    return skip_member(c);
}

static int block_element(void *ctx, Cur *c) {
    Record *r = ctx;
    if (r->nblocks >= MAX_BLOCKS) return 0;
    Block *b = &r->blocks[r->nblocks++];
    memset(b, 0, offsetof(Block, part_type)); /* the part arrays are filled as read */
    if (is_container(c, '{')) {
        b->element = V_OBJECT;
        return walk_object(c, b, block_member);
    }
    Val scratch; /* not an object: only its kind matters */
    if (!read_value(c, &scratch)) return 0;
    b->element = scratch.kind;
    return 1;
}

static int message_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("model")) return read_once(c, &r->model);
    if (KEY_IS("content")) return read_into(c, &r->content, r, NULL, block_element);
    return skip_member(c);
}

static int outcome_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("stdout")) return read_once(c, &r->stdout_);
    if (KEY_IS("interrupted")) return read_once(c, &r->interrupted);
    if (KEY_IS("backgroundTaskId")) return read_once(c, &r->background);
    return skip_member(c);
}

static int record_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Record *r = ctx;
    if (KEY_IS("message")) return read_into(c, &r->message, r, message_member, NULL);
    if (KEY_IS("toolUseResult")) return read_into(c, &r->outcome, r, outcome_member, NULL);
    if (KEY_IS("type")) return read_once(c, &r->type);
    if (KEY_IS("isSidechain")) return read_once(c, &r->is_sidechain);
    if (KEY_IS("sessionId")) return read_once(c, &r->session_id);
    if (KEY_IS("cwd")) return read_once(c, &r->cwd);
    if (KEY_IS("forkedFrom")) return read_once(c, &r->forked_from);
    if (KEY_IS("gitBranch")) return read_once(c, &r->git_branch);
    if (KEY_IS("timestamp")) return read_once(c, &r->timestamp);
    if (KEY_IS("uuid")) return read_once(c, &r->uuid);
    if (KEY_IS("isMeta")) return read_once(c, &r->is_meta);
    if (KEY_IS("isCompactSummary")) return read_once(c, &r->is_compact);
    if (KEY_IS("isVisibleInTranscriptOnly")) return read_once(c, &r->is_visible_only);
    return skip_member(c);
}

static int read_record(Cur *c, Record *r) {
    skip_ws(c);
    if (!walk_object(c, r, record_member)) return 0;
    skip_ws(c);
    return c->p == c->end; /* nothing but whitespace after the record */
}

/* ---- the fold --------------------------------------------------------------------------- */

/* `_exit_code` for an error result: `Exit code (-?\d+)\b` at its start. 1 and `*code` (a new
 * reference, maybe None) set; 0 when only Python's Unicode-aware regex could say. */
static int exit_code(PyObject *excerpt, PyObject **code) {
    static const char prefix[] = "Exit code ";
    Py_ssize_t n = PyUnicode_GET_LENGTH(excerpt), at = sizeof(prefix) - 1;
    int kind = PyUnicode_KIND(excerpt);
    const void *data = PyUnicode_DATA(excerpt);
    *code = Py_None;
    Py_INCREF(Py_None);
    if (n < at) return 1;
    for (Py_ssize_t i = 0; i < at; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)prefix[i]) return 1;
    int negative = at < n && PyUnicode_READ(kind, data, at) == '-';
    Py_ssize_t first = at + negative, end = first;
    long long value = 0;
    while (end < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, end);
        if (ch >= 0x80) return 0;
        if (ch < '0' || ch > '9') break;
        if (end - first >= 18) return 0;
        value = value * 10 + (ch - '0');
        end++;
    }
    if (end == first) return 1;
    if (end < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, end);
        if (ch >= 0x80) return 0;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_') return 1;
    }
    Py_DECREF(Py_None);
    *code = PyLong_FromLongLong(negative ? -value : value);
    return *code != NULL ? 1 : -1;
}

static PyObject *part_key(PyObject *key, Py_ssize_t index) {
    if (key == Py_None) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return PyUnicode_FromFormat("%U:%zd", key, index);
}

/* A tool result's text (`_text_of`), each piece decoded only up to its window and a character
 * past it: the window, the exit code and the interruption prefix all read the start. 0: not
 * handled; -1: error. */
static int result_text(const Block *b, PyObject **out) {
    Py_ssize_t cap = result_window + 1;
    if (b->content.kind == V_STRING) {
        *out = decode(&b->content, cap);
        return *out ? 1 : -1;
    }
    if (b->content.kind != V_ARRAY) {
        *out = PyUnicode_New(0, 0);
        return *out ? 1 : -1;
    }
    PyObject *pieces = PyList_New(0);
    if (pieces == NULL) return -1;
    for (int i = 0; i < b->parts; i++) {
        const Val *type = &b->part_type[i], *text = &b->part_text[i];
        if (type->kind == V_STRING && type->escaped) {
            Py_DECREF(pieces);
            return 0;
        }
        if (!is_raw(type, "text") || text->kind != V_STRING) continue;
        PyObject *piece = decode(text, cap);
        if (piece == NULL || PyList_Append(pieces, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(pieces);
            return -1;
        }
        Py_DECREF(piece);
    }
    PyObject *newline = PyUnicode_FromString("\n");
    *out = newline ? PyUnicode_Join(newline, pieces) : NULL;
    Py_XDECREF(newline);
    Py_DECREF(pieces);
    return *out ? 1 : -1;
}

/* The assistant turn's events; 0: not handled, -1: error. */
static int assistant_events(const Record *r, PyObject *ts, PyObject *key, PyObject *out) {
    if (r->content.kind == V_STRING) {
        PyObject *text = window(decode(&r->content, 0), text_window);
        if (text == NULL) return -1;
        int failed = event(out, 4, s_assistant, ts, key, text);
        Py_DECREF(text);
        return failed ? -1 : 1;
    }
    if (r->content.kind != V_ARRAY) return 1;
    for (int i = 0; i < r->nblocks; i++) {
        const Block *b = &r->blocks[i];
        if (b->element != V_OBJECT || b->type.kind != V_STRING) continue;
        if (b->type.escaped) return 0;
        int is_text = is_raw(&b->type, "text"), is_call = is_raw(&b->type, "tool_use");
        if (!is_text && !is_call) continue;
        PyObject *text = NULL, *id = NULL, *name = NULL, *input = NULL, *part = NULL;
        int status = 1;
        if (is_text) {
            if ((text = first_text(&b->text, NULL, 0)) == NULL) status = PyErr_Occurred() ? -1 : 0;
        } else {
            const Val *chosen = NULL;
            for (int f = 0; f < 6 && chosen == NULL; f++)
                if (b->input[f].kind == V_STRING) chosen = &b->input[f];
            int no_input = b->input_value.kind == V_ABSENT || b->input_value.kind == V_NULL;
            if ((id = first_text(&b->id, NULL, 0)) == NULL || (name = first_text(&b->name, NULL, 0)) == NULL)
                status = PyErr_Occurred() ? -1 : 0;
            else if (no_input) input = PyUnicode_New(0, 0);
            else if (b->input_value.kind == V_OBJECT && chosen != NULL) input = decode(chosen, 0);
            else status = 0; /* `_tool_input` would serialise it */
            if (status == 1 && input == NULL) status = -1;
        }
        if (status == 1) part = part_key(key, i);
        if (status == 1 && part == NULL) status = -1;
        if (status == 1 && is_text) {
            text = window(text, text_window);
            status = text == NULL ? -1 : event(out, 4, s_assistant, ts, part, text) ? -1 : 1;
        } else if (status == 1) {
            input = window(input, input_window);
            status = input == NULL ? -1
                     : event(out, 6, s_call, ts, part, id, name, input) ? -1
                                                                        : 1;
        }
        Py_XDECREF(text);
        Py_XDECREF(id);
        Py_XDECREF(name);
        Py_XDECREF(input);
        Py_XDECREF(part);
        if (status != 1) return status;
    }
    return 1;
}


/* Whether Bash's `toolUseResult` says the command exited 0 (see `_exit_code`); -1: not
 * handled. */
static int exited_cleanly(const Record *r) {
    if (r->outcome.kind != V_OBJECT || r->stdout_.kind == V_ABSENT) return 0;
    if (r->interrupted.kind != V_FALSE) return 0;
    const Val *bg = &r->background;
    if (bg->kind == V_ABSENT || bg->kind == V_NULL || bg->kind == V_FALSE) return 1;
    if (bg->kind == V_STRING) return bg->start == bg->end; /* "" is false */
    if (bg->kind == V_TRUE) return 0;
    return -1;
}

/* The tool results' events; 0: not handled, -1: error. */
static int result_events(const Record *r, PyObject *ts, PyObject *key, PyObject *out) {
    for (int i = 0; i < r->nblocks; i++) { /* first, what only Python handles */
        const Block *b = &r->blocks[i];
        if (b->element == V_STRING) return 0;
        if (b->element != V_OBJECT || b->type.kind != V_STRING) continue;
        if (b->type.escaped || is_raw(&b->type, "text")) return 0;
        if (is_raw(&b->type, "tool_result") && flag(&b->is_error) < 0) return 0;
    }
    int clean = r->nblocks == 1 ? exited_cleanly(r) : 0;
    if (clean < 0) return 0;
    for (int i = 0; i < r->nblocks; i++) {
        const Block *b = &r->blocks[i];
        if (b->element != V_OBJECT || !is_raw(&b->type, "tool_result")) continue;
        PyObject *call_id = NULL, *excerpt = NULL, *code = NULL, *part = NULL, *kept = NULL;
        int error = flag(&b->is_error), status = 1;
        if ((call_id = first_text(&b->tool_use_id, NULL, 0)) == NULL) status = PyErr_Occurred() ? -1 : 0;
        if (status == 1) status = result_text(b, &excerpt);
        if (status == 1 && error) status = exit_code(excerpt, &code);
        if (status == 1 && !error) {
            code = clean ? PyLong_FromLong(0) : Py_None;
            if (code == Py_None) Py_INCREF(code);
            if (code == NULL) status = -1;
        }
        if (status == 1 && (part = part_key(key, i)) == NULL) status = -1;
        if (status == 1) {
            Py_INCREF(excerpt);
            kept = window(excerpt, result_window);
            if (kept == NULL) status = -1;
        }
        if (status == 1 && event(out, 7, s_result, ts, part, call_id, kept,
                                 error ? Py_True : Py_False, code))
            status = -1;
        if (status == 1 && starts_with_ascii(excerpt, "[Request interrupted by user")) {
            PyObject *mark = part == Py_None ? Py_None : PyUnicode_FromFormat("%U:i", part);
            if (mark == Py_None) Py_INCREF(mark);
            status = mark == NULL ? -1 : event(out, 3, s_interrupt, ts, mark) ? -1 : 1;
            Py_XDECREF(mark);
        }
        Py_XDECREF(call_id);
        Py_XDECREF(excerpt);
        Py_XDECREF(code);
        Py_XDECREF(part);
        Py_XDECREF(kept);
        if (status != 1) return status;
    }
    return 1;
}

/* A typed prompt's event, if any, into `out`, and `*engine` set: what `_user` does with a string
 * content, decided by the registered function, which changes nothing itself. 0: not handled (the
 * function raised an `Exception`: the Python path will call it again and do as it does with
 * the error); -1: error. */
static int prompt_events(const Record *r, PyObject *ts, PyObject *key, PyObject *out,
                         int *engine) {
    PyObject *text = decode(&r->content, 0);
    if (text == NULL) return -1;
    PyObject *handler = prompt_handler; /* the call could replace it */
    Py_INCREF(handler);
    PyObject *found = PyObject_CallFunctionObjArgs(handler, text, ts, key, NULL);
    Py_DECREF(handler);
    Py_DECREF(text);
    if (found == NULL) return PyErr_ExceptionMatches(PyExc_Exception) ? 0 : -1;
    int status = -1;
    if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2 ||
        (PyTuple_GET_ITEM(found, 0) != Py_None && !PyList_Check(PyTuple_GET_ITEM(found, 0))))
        PyErr_SetString(PyExc_TypeError, "the typed prompt function must return "
                                         "(event list or None, engine)");
    else if ((*engine = PyObject_IsTrue(PyTuple_GET_ITEM(found, 1))) < 0)
        ;
    else if (PyTuple_GET_ITEM(found, 0) == Py_None ||
             PyList_Append(out, PyTuple_GET_ITEM(found, 0)) == 0)
        status = 1;
    Py_DECREF(found);
    return status;
}

static int set_if_unset(PyObject *meta, PyObject *name, PyObject *value) {
    if (value == NULL || PyUnicode_GET_LENGTH(value) == 0) return 0;
    PyObject *old = PyDict_GetItemWithError(meta, name);
    if (old == NULL && PyErr_Occurred()) return -1;
    if (old != NULL) {
        int truth = PyObject_IsTrue(old);
        if (truth) return truth < 0 ? -1 : 0;
    }
    return PyDict_SetItem(meta, name, value);
}

/* The session facts every record repeats (`feed`'s first lines). */
static int update_meta(PyObject *meta, PyObject *session, PyObject *cwd, PyObject *branch) {
    if (set_if_unset(meta, s_session_id, session) < 0 || set_if_unset(meta, s_cwd, cwd) < 0)
        return -1;
    if (branch == NULL || PyUnicode_GET_LENGTH(branch) == 0 ||
        PyUnicode_CompareWithASCIIString(branch, "HEAD") == 0)
        return 0;
    PyObject *old = PyDict_GetItemWithError(meta, s_git_branch);
    if (old == NULL && PyErr_Occurred()) return -1;
    if (old != NULL) {
        int differs = PyObject_RichCompareBool(branch, old, Py_NE);
        if (differs <= 0) return differs;
    }
    return PyDict_SetItem(meta, s_git_branch, branch);
}

static int optional_text(const Val *v) {
    return v->kind == V_ABSENT || v->kind == V_NULL || v->kind == V_STRING;
}

/* One line (`p` to `end`, no newline) folded into `meta` and `events`: 1 folded, 2 a sidechain
 * record skipped, 0 not handled (nothing changed), -1 an exception. `r` is scratch space. */
static int fold_span(Record *r, const unsigned char *p, const unsigned char *end, PyObject *meta,
                     PyObject *events, int sidechains) {
    memset(r, 0, offsetof(Record, blocks));
    Cur c = {p, end, 0};
    int handled = 0;
    PyObject *ts = NULL, *key = NULL, *session = NULL, *cwd = NULL, *branch = NULL;
    PyObject *model = NULL, *out = NULL;
    int assistant, side, ignored = 0, prompt = 0, engine = 0, status = 0;
    Py_ssize_t size;
    double seconds = 0;
    if (!read_record(&c, r)) goto done;
    assistant = is_raw(&r->type, "assistant");
    if (!assistant && !is_raw(&r->type, "user")) {
        for (const char *const *name = IGNORED_TYPES; *name && !handled; name++)
            handled = is_raw(&r->type, *name); /* `feed` drops it before reading anything */
        goto done;
    }
    side = flag(&r->is_sidechain);
    if (side < 0) goto done;
    if (side && !sidechains) {
        handled = 2;
        goto done;
    }
    if (!optional_text(&r->session_id) || !optional_text(&r->cwd) ||
        !optional_text(&r->git_branch) || r->message.kind != V_OBJECT)
        goto done;
    if (r->forked_from.kind != V_ABSENT && r->forked_from.kind != V_NULL) goto done;
    if (r->timestamp.kind != V_ABSENT && r->timestamp.kind != V_NULL &&
        !iso_utc(&r->timestamp, &seconds))
        goto done;
    if (!assistant) {
        int a = flag(&r->is_meta), b = flag(&r->is_compact), v = flag(&r->is_visible_only);
        if (a < 0 || b < 0 || v < 0) goto done;
        ignored = a || b || v;
        prompt = !ignored && r->content.kind == V_STRING;
        if (prompt && prompt_handler == NULL) goto done; /* a typed prompt: Python's */
        if (!ignored && !prompt && r->content.kind != V_ARRAY) goto done;
    }
    status = -1; /* from here on a failure is an exception */
    if (r->timestamp.kind == V_STRING) {
        if ((ts = PyFloat_FromDouble(seconds)) == NULL) goto done;
    } else {
        ts = Py_None;
        Py_INCREF(ts);
    }
    if (r->uuid.kind == V_STRING && r->uuid.start != r->uuid.end) {
        if ((key = decode(&r->uuid, 0)) == NULL) goto done;
    } else {
        key = Py_None;
        Py_INCREF(key);
    }
    if ((r->session_id.kind == V_STRING && (session = decode(&r->session_id, 0)) == NULL) ||
        (r->cwd.kind == V_STRING && (cwd = decode(&r->cwd, 0)) == NULL) ||
        (r->git_branch.kind == V_STRING && (branch = decode(&r->git_branch, 0)) == NULL))
        goto done;
    if ((out = PyList_New(0)) == NULL) goto done;
    if (assistant) {
        if (r->model.kind == V_STRING && (model = decode(&r->model, 0)) == NULL) goto done;
        status = assistant_events(r, ts, key, out);
    } else if (prompt) status = prompt_events(r, ts, key, out, &engine);
    else status = ignored ? 1 : result_events(r, ts, key, out);
    if (status != 1) goto done;
    status = -1;
    if (update_meta(meta, session, cwd, branch) < 0) goto done;
    if (model != NULL && PyUnicode_GET_LENGTH(model) > 0 &&
        PyUnicode_READ_CHAR(model, 0) != '<' && PyDict_SetItem(meta, s_model, model) < 0)
        goto done;
    if (engine && PyDict_SetItem(meta, s_engine, Py_True) < 0) goto done;
    size = PyList_GET_SIZE(events);
    if (PyList_SetSlice(events, size, size, out) < 0) goto done;
    status = 1;
    handled = 1;
done:
    Py_XDECREF(ts);
    Py_XDECREF(key);
    Py_XDECREF(session);
    Py_XDECREF(cwd);
    Py_XDECREF(branch);
    Py_XDECREF(model);
    Py_XDECREF(out);
    if (status < 0 && PyErr_Occurred()) return -1;
    PyErr_Clear();
    return handled;
}

static PyObject *fold(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyDict_Check(args[1]) ||
        !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "fold(line: bytes, meta: dict, events: list, "
                                         "sidechains: bool)");
        return NULL;
    }
    int sidechains = PyObject_IsTrue(args[3]);
    if (sidechains < 0) return NULL;
    Record *r = PyMem_Malloc(sizeof(Record));
    if (r == NULL) return PyErr_NoMemory();
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    int handled = fold_span(r, p, p + PyBytes_GET_SIZE(args[0]), args[1], args[2], sidechains);
    PyMem_Free(r);
    return handled < 0 ? NULL : PyLong_FromLong(handled);
}

/* set_prompt(function or None): see `prompt_handler`. */
static PyObject *set_prompt(PyObject *module, PyObject *handler) {
    (void)module;
    if (handler != Py_None && !PyCallable_Check(handler)) {
        PyErr_SetString(PyExc_TypeError, "set_prompt: a callable or None");
        return NULL;
    }
    PyObject *old = prompt_handler;
    prompt_handler = handler == Py_None ? NULL : handler;
    Py_XINCREF(prompt_handler);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

typedef struct {
    Record *record;
    PyObject *meta, *events;
    int sidechains;
} Target;

static int fold_one(void *ctx, const unsigned char *p, const unsigned char *end) {
    Target *t = ctx;
    return fold_span(t->record, p, end, t->meta, t->events, t->sidechains);
}

/* fold_lines(data, start, end, state, sidechains): see `fold_run`. */
static PyObject *fold_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "fold_lines(data: bytes, start: int, end: int, "
                                         "state: FileState, sidechains: bool)");
        return NULL;
    }
    Target target = {NULL, NULL, NULL, 0};
    PyObject *out = NULL;
    if ((target.meta = PyObject_GetAttrString(args[3], "meta")) == NULL ||
        (target.events = PyObject_GetAttrString(args[3], "events")) == NULL ||
        (target.sidechains = PyObject_IsTrue(args[4])) < 0)
        ;
    else if (!PyDict_Check(target.meta) || !PyList_Check(target.events))
        PyErr_SetString(PyExc_TypeError, "fold_lines: state.meta must be a dict and "
                                         "state.events a list");
    else if ((target.record = PyMem_Malloc(sizeof(Record))) == NULL) PyErr_NoMemory();
    else out = fold_run(args[0], args[1], args[2], fold_one, &target);
    PyMem_Free(target.record);
    Py_XDECREF(target.meta);
    Py_XDECREF(target.events);
    return out;
}

static PyMethodDef methods[] = {
    {"fold", (PyCFunction)(void (*)(void))fold, METH_FASTCALL,
     "fold(line, meta, events, sidechains) -> 1 folded, 2 a skipped sidechain record, 0 not "
     "handled (nothing changed: read it in Python)."},
    {"fold_lines", (PyCFunction)(void (*)(void))fold_lines, METH_FASTCALL,
     "fold_lines(data, start, end, state, sidechains) -> (next, line_start, line_end, "
     "sidechains_skipped): the lines of data[start:end] folded until one is not handled "
     "(line_start -1: all were)."},
    {"set_prompt", set_prompt, METH_O,
     "set_prompt(function or None): what a typed prompt adds, as "
     "function(text, ts, key) -> (event or None, engine); None: typed prompts are not handled."},
    CONFIGURE_METHOD,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_claude_fast", "The Claude Code reader's hot path (see claude.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__claude_fast(void) {
    static PyObject **const names[] = {&s_session_id, &s_cwd, &s_git_branch, &s_model,
                                       &s_engine};
    static const char *const texts[] = {"session_id", "cwd", "git_branch", "model", "engine"};
    PyObject *module = create_module(&module_def, names, texts, 5);
    if (module == NULL) return NULL;
    PyObject *ignored = PyFrozenSet_New(NULL);
    for (const char *const *name = IGNORED_TYPES; ignored != NULL && *name; name++) {
        PyObject *text = PyUnicode_FromString(*name);
        if (text == NULL || PySet_Add(ignored, text) < 0) Py_CLEAR(ignored);
        Py_XDECREF(text);
    }
    if (ignored == NULL || PyModule_AddObject(module, "IGNORED_TYPES", ignored) < 0) {
        Py_XDECREF(ignored);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
