#ifndef CPFJSONC_SHIM_H
#define CPFJSONC_SHIM_H
#include <json-c/json.h>
#include <json-c/json_object_iterator.h>
#endif
