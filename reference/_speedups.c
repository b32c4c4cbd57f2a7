/*
 * The plain-tree check of eventproof.reference._canonical, compiled.
 *
 * plain_tree(value) and plain_tree_code_points(value) answer exactly what the Python functions
 * _plain_tree_py and _plain_tree_code_points_py of _canonical.py answer (a differential property
 * test holds them equal): whether ``value`` is a dict or list made, at any depth, only of exact
 * dicts whose member names are exact strings not starting with an ASCII digit, exact lists,
 * exact strings, exact integers, booleans, None and floats whose orjson text is the canonical
 * one (_native_float); and, for the second, how many code points its strings and member names
 * hold, or -1. Where Python would raise RecursionError (very deep nesting) these answer False
 * and -1, which every caller treats the same way: the general path decides.
 *
 * Nothing in these walks calls back into Python, so no object can change while it is walked;
 * every reference is borrowed. The audit's byte walk follows them in this file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

/* Deeper than this the walk declines; orjson itself refuses nesting deeper than 255. */
#define MAX_DEPTH 512

/* _native_float of _canonical.py: not an integer and 1e-5 <= |x| < 1e16, or 0 < |x| < 1e-6.
   NaN and the infinities fail every comparison that would accept them. */
static int
native_float(double x)
{
    double magnitude = fabs(x);
    if (magnitude >= 1e-5 && magnitude < 1e16) {
        return magnitude != floor(magnitude);
    }
    return magnitude > 0.0 && magnitude < 1e-6;
}

static Py_ssize_t
string_length(PyObject *text)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        PyErr_Clear();
        return -1;
    }
#endif
    return PyUnicode_GET_LENGTH(text);
}

static Py_ssize_t walk(PyObject *value, int depth);

/* The code points of one member or item, or -1 when it is not plain. */
static Py_ssize_t
member(PyObject *item, int depth)
{
    if (PyUnicode_CheckExact(item)) {
        return string_length(item);
    }
    if (PyLong_CheckExact(item) || PyBool_Check(item) || item == Py_None) {
        return 0;
    }
    if (PyDict_CheckExact(item) || PyList_CheckExact(item)) {
        return walk(item, depth + 1);
    }
    if (PyFloat_CheckExact(item)) {
        return native_float(PyFloat_AS_DOUBLE(item)) ? 0 : -1;
    }
    return -1;
}

static Py_ssize_t
walk(PyObject *value, int depth)
{
    Py_ssize_t total = 0, inner;
    if (depth > MAX_DEPTH) {
        return -1;
    }
    if (PyDict_CheckExact(value)) {
        Py_ssize_t position = 0;
        PyObject *key, *item;
        while (PyDict_Next(value, &position, &key, &item)) {
            Py_ssize_t length;
            if (!PyUnicode_CheckExact(key)) {
                return -1;
            }
            length = string_length(key);
            if (length < 0) {
                return -1;
            }
            if (length > 0) {
                Py_UCS4 first = PyUnicode_READ_CHAR(key, 0);
                if (first >= '0' && first <= '9') {
                    return -1; /* a possible array index: its place in the order differs */
                }
            }
            inner = member(item, depth);
            if (inner < 0) {
                return -1;
            }
            total += length + inner;
        }
        return total;
    }
    if (PyList_CheckExact(value)) {
        Py_ssize_t index;
        /* Nothing runs Python code during the walk, so the list cannot change size. */
        for (index = 0; index < PyList_GET_SIZE(value); index++) {
            inner = member(PyList_GET_ITEM(value, index), depth);
            if (inner < 0) {
                return -1;
            }
            total += inner;
        }
        return total;
    }
    return -1;
}

/*
 * The byte walk of eventproof.conformance.audit._bytes (ByteStats._walk), compiled.
 *
 * byte_walk(by_path, repeats, kind, value, data) counts into ``by_path`` and ``repeats``
 * exactly what ByteStats._walk(kind, "$", value, data, 0, len(data), own=False) counts (a
 * differential property test holds the two equal), where ``data`` is orjson's writing of
 * ``value``: the members' writings are found by reading ``data`` itself (a string runs to its
 * first quote not escaped, a container to its closing bracket, a scalar to the next comma or
 * bracket), where the Python walk writes members again to learn their lengths. orjson writes a
 * member inside a value as it writes it alone, so both find the same spans; both digest the same
 * bytes with zlib's CRC-32 (zlib.crc32 itself is called). A member name orjson wrote holds no
 * lone surrogate, so it is its own well-formed text in a path. Strings, objects and arrays are
 * told apart as isinstance tells them apart in the Python walk (subclasses included). Where
 * ``data`` does not hold the writing of ``value`` it raises ValueError.
 */

/* Counted: members of at least SMALL_BYTES (a string: code points); digested: HEAVY_BYTES. */
#define SMALL_BYTES 256
#define HEAVY_BYTES 4096
#define SPANNED_MEMBERS 64

typedef struct {
    const char *data;
    Py_ssize_t size;
    PyObject *by_path;
    PyObject *repeats;
    PyObject *kind;
    PyObject *crc32;
} ByteWalk;

static PyObject *zlib_crc32 = NULL;

static int
mismatch(void)
{
    PyErr_SetString(PyExc_ValueError, "byte_walk: data is not orjson's writing of value");
    return -1;
}

/* The end (after the closing quote) of the string whose opening quote is at ``at``, or -1. */
static Py_ssize_t
skip_string(const ByteWalk *walk, Py_ssize_t at)
{
    Py_ssize_t index = at + 1;
    while (index < walk->size) {
        const char *quote = memchr(walk->data + index, '"', (size_t)(walk->size - index));
        Py_ssize_t found, back;
        if (quote == NULL) {
            return -1;
        }
        found = quote - walk->data;
        back = found - 1;
        while (back > at && walk->data[back] == '\\') {
            back--;
        }
        if ((found - 1 - back) % 2 == 0) {
            return found + 1;
        }
        index = found + 1;
    }
    return -1;
}

/* The end of the value whose writing starts at ``at``, or -1. */
static Py_ssize_t
skip_value(const ByteWalk *walk, Py_ssize_t at)
{
    const char *data = walk->data;
    Py_ssize_t index = at, level = 0;
    if (at >= walk->size) {
        return -1;
    }
    if (data[at] == '"') {
        return skip_string(walk, at);
    }
    if (data[at] != '{' && data[at] != '[') {
        while (index < walk->size && data[index] != ',' && data[index] != ']' &&
               data[index] != '}') {
            index++;
        }
        return index;
    }
    while (index < walk->size) {
        char c = data[index];
        if (c == '"') {
            index = skip_string(walk, index);
            if (index < 0) {
                return -1;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            level++;
        }
        else if (c == '}' || c == ']') {
            if (--level == 0) {
                return index + 1;
            }
        }
        index++;
    }
    return -1;
}

/* zlib.crc32(data[low:high], crc), or -1 with an exception set. */
static long long
crc_of(const ByteWalk *walk, const char *start, Py_ssize_t length, unsigned long crc)
{
    PyObject *view, *answer;
    unsigned long value;
    view = PyMemoryView_FromMemory((char *)start, length, PyBUF_READ);
    if (view == NULL) {
        return -1;
    }
    answer = PyObject_CallFunction(walk->crc32, "Ok", view, crc);
    Py_DECREF(view);
    if (answer == NULL) {
        return -1;
    }
    value = PyLong_AsUnsignedLong(answer);
    Py_DECREF(answer);
    if (value == (unsigned long)-1 && PyErr_Occurred()) {
        return -1;
    }
    return (long long)value;
}

/* With ``size`` >= 0, by_path[(kind, path)] += [1, size]; with ``digest`` >= 0,
   repeats[(kind, path)][digest] += 1. */
static int
count(const ByteWalk *walk, PyObject *path, Py_ssize_t size, long long digest)
{
    PyObject *key, *totals, *seen, *number, *before, *after;
    int failed = -1;
    key = PyTuple_Pack(2, walk->kind, path);
    if (key == NULL) {
        return -1;
    }
    totals = size < 0 ? Py_None : PyDict_GetItemWithError(walk->by_path, key);
    if (totals == Py_None) {
        /* only the digest */
    }
    else if (totals == NULL) {
        if (PyErr_Occurred()) {
            goto done;
        }
        totals = Py_BuildValue("[in]", 1, size);
        if (totals == NULL || PyDict_SetItem(walk->by_path, key, totals) < 0) {
            Py_XDECREF(totals);
            goto done;
        }
        Py_DECREF(totals);
    }
    else {
        Py_ssize_t slot;
        if (!PyList_CheckExact(totals) || PyList_GET_SIZE(totals) != 2) {
            PyErr_SetString(PyExc_TypeError, "byte_walk: by_path holds a value not [count, size]");
            goto done;
        }
        for (slot = 0; slot < 2; slot++) {
            number = PyLong_FromSsize_t(slot == 0 ? 1 : size);
            if (number == NULL) {
                goto done;
            }
            after = PyNumber_Add(PyList_GET_ITEM(totals, slot), number);
            Py_DECREF(number);
            if (after == NULL) {
                goto done;
            }
            PyList_SetItem(totals, slot, after); /* steals ``after`` */
        }
    }
    if (digest >= 0) {
        seen = PyDict_GetItemWithError(walk->repeats, key);
        if (seen == NULL) {
            if (PyErr_Occurred()) {
                goto done;
            }
            seen = PyDict_New();
            if (seen == NULL || PyDict_SetItem(walk->repeats, key, seen) < 0) {
                Py_XDECREF(seen);
                goto done;
            }
            Py_DECREF(seen); /* the dict holds it */
        }
        number = PyLong_FromLongLong(digest);
        if (number == NULL) {
            goto done;
        }
        before = PyDict_GetItemWithError(seen, number);
        if (before == NULL && PyErr_Occurred()) {
            Py_DECREF(number);
            goto done;
        }
        if (before == NULL) {
            after = PyLong_FromLong(1);
        }
        else {
            long long times = PyLong_AsLongLong(before);
            after = times == -1 && PyErr_Occurred() ? NULL : PyLong_FromLongLong(times + 1);
        }
        if (after == NULL || PyDict_SetItem(seen, number, after) < 0) {
            Py_XDECREF(after);
            Py_DECREF(number);
            goto done;
        }
        Py_DECREF(after);
        Py_DECREF(number);
    }
    failed = 0;
done:
    Py_DECREF(key);
    return failed;
}

static PyObject *STAR = NULL, *DOT = NULL;

/* The path of a member: ``path[*]`` for an array element (``key`` NULL) or a member named
   ``[*]``, else ``path.key``. */
static PyObject *
child_path(PyObject *path, PyObject *key)
{
    PyObject *dotted, *child;
    if (key == NULL) {
        return PyUnicode_Concat(path, STAR);
    }
    if (!PyUnicode_Check(key)) {
        mismatch();
        return NULL;
    }
    if (PyUnicode_Compare(key, STAR) == 0) {
        return PyUnicode_Concat(path, STAR);
    }
    dotted = PyUnicode_Concat(path, DOT);
    if (dotted == NULL) {
        return NULL;
    }
    child = PyUnicode_Concat(dotted, key);
    Py_DECREF(dotted);
    return child;
}

/* ByteStats._walk of ``value`` written at data[low:high]: 0, with ``*digest`` the value's own
   digest when it is made (``own`` and the value is read by its members' spans), else -1; -1
   with an exception set on failure. */
static int
walk_value(const ByteWalk *walk, PyObject *path, PyObject *value, Py_ssize_t low,
           Py_ssize_t high, int own, int depth, long long *digest)
{
    const char *data = walk->data;
    int is_list = PyList_Check(value);
    Py_ssize_t members, index, at = low + 1, position = low, next = 0;
    int spanned;
    long long crc = 0;
    char closing = is_list ? ']' : '}';
    *digest = -1;
    if (!is_list && !PyDict_Check(value)) {
        return mismatch();
    }
    members = is_list ? PyList_GET_SIZE(value) : PyDict_GET_SIZE(value);
    spanned = is_list ? members == 1 : members <= SPANNED_MEMBERS;
    if (depth > MAX_DEPTH || low < 0 || high > walk->size || high - low < 2 ||
        data[low] != (is_list ? '[' : '{') || data[high - 1] != closing) {
        return mismatch();
    }
    if (members == 0) {
        return high == low + 2 ? 0 : mismatch();
    }
    for (index = 0; index < members; index++) {
        PyObject *key = NULL, *item, *child;
        Py_ssize_t start, stop, size;
        long long own_digest = -1;
        if (is_list) {
            item = PyList_GET_ITEM(value, index);
        }
        else {
            Py_ssize_t end;
            if (!PyDict_Next(value, &next, &key, &item) || data[at] != '"') {
                return mismatch();
            }
            end = skip_string(walk, at);
            if (end < 0 || end >= high || data[end] != ':') {
                return mismatch();
            }
            at = end + 1;
        }
        start = at;
        stop = skip_value(walk, start);
        if (stop < 0 || stop >= high || data[stop] != (index == members - 1 ? closing : ',')) {
            return mismatch();
        }
        at = stop + 1;
        size = stop - start;
        if (PyUnicode_Check(item)) {
            if (PyUnicode_GET_LENGTH(item) < SMALL_BYTES) {
                continue;
            }
        }
        else if (PyDict_Check(item) || PyList_Check(item)) {
            if (size < SMALL_BYTES) {
                continue;
            }
        }
        else {
            continue;
        }
        child = child_path(path, key);
        if (child == NULL || count(walk, child, size, -1) < 0) {
            Py_XDECREF(child);
            return -1;
        }
        if (size < HEAVY_BYTES) {
            Py_DECREF(child);
            continue;
        }
        if (!PyUnicode_Check(item) &&
            walk_value(walk, child, item, start, stop, 1, depth + 1, &own_digest) < 0) {
            Py_DECREF(child);
            return -1;
        }
        if (own_digest < 0) {
            own_digest = crc_of(walk, data + start, size, 0);
            if (own_digest < 0) {
                Py_DECREF(child);
                return -1;
            }
            own_digest |= (long long)size << 32;
        }
        if (count(walk, child, -1, own_digest) < 0) {
            Py_DECREF(child);
            return -1;
        }
        Py_DECREF(child);
        if (spanned && own) {
            unsigned char bytes[16] = {0};
            int shift;
            for (shift = 0; shift < 8; shift++) {
                bytes[shift] = (unsigned char)((unsigned long long)own_digest >> (8 * shift));
            }
            crc = crc_of(walk, data + position, start - position, (unsigned long)crc);
            if (crc >= 0) {
                crc = crc_of(walk, (const char *)bytes, 16, (unsigned long)crc);
            }
            if (crc < 0) {
                return -1;
            }
            position = stop;
        }
    }
    if (at != high) {
        return mismatch();
    }
    if (spanned && own) {
        crc = crc_of(walk, data + position, high - position, (unsigned long)crc);
        if (crc < 0) {
            return -1;
        }
        *digest = crc | (long long)(high - low) << 32;
    }
    return 0;
}

static PyObject *
byte_walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    ByteWalk walk;
    PyObject *path;
    long long ignored;
    int failed;
    if (nargs != 5 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) ||
        !PyBytes_CheckExact(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "byte_walk(by_path: dict, repeats: dict, kind, value, data: bytes)");
        return NULL;
    }
    if (PyBytes_GET_SIZE(args[4]) >= ((Py_ssize_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "byte_walk: data of 2 GiB or more");
        return NULL;
    }
    if (zlib_crc32 == NULL) {
        PyObject *zlib = PyImport_ImportModule("zlib");
        if (zlib == NULL) {
            return NULL;
        }
        zlib_crc32 = PyObject_GetAttrString(zlib, "crc32");
        Py_DECREF(zlib);
        if (zlib_crc32 == NULL) {
            return NULL;
        }
    }
    if (STAR == NULL && (STAR = PyUnicode_InternFromString("[*]")) == NULL) {
        return NULL;
    }
    if (DOT == NULL && (DOT = PyUnicode_InternFromString(".")) == NULL) {
        return NULL;
    }
    path = PyUnicode_InternFromString("$");
    if (path == NULL) {
        return NULL;
    }
    walk.data = PyBytes_AS_STRING(args[4]);
    walk.size = PyBytes_GET_SIZE(args[4]);
    walk.by_path = args[0];
    walk.repeats = args[1];
    walk.kind = args[2];
    walk.crc32 = zlib_crc32;
    failed = walk_value(&walk, path, args[3], 0, walk.size, 0, 0, &ignored);
    Py_DECREF(path);
    if (failed < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
plain_tree(PyObject *module, PyObject *value)
{
    return PyBool_FromLong(walk(value, 0) >= 0);
}

static PyObject *
plain_tree_code_points(PyObject *module, PyObject *value)
{
    return PyLong_FromSsize_t(walk(value, 0));
}

static PyMethodDef methods[] = {
    {"plain_tree", plain_tree, METH_O,
     "True when orjson writes the dict or list ``value`` canonically, integers aside."},
    {"plain_tree_code_points", plain_tree_code_points, METH_O,
     "The code points of every string and member name of a plain ``value``, else -1."},
    {"byte_walk", (PyCFunction)(void (*)(void))byte_walk, METH_FASTCALL,
     "Count the members of ``value``, written as ``data``, as ByteStats._walk counts them."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups",
    "The plain-tree check of the canonical form and the audit's byte walk, compiled.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module);
}
