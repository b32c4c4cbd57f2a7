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
 * Nothing here calls back into Python, so no object can change while it is walked; every
 * reference is borrowed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups",
    "The plain-tree check of the canonical form, compiled (see _canonical.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module);
}
