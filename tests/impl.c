/* The implementation of ecs.h as the tests use it, compiled once per
   configuration (compiler, language standard, sanitizers: see the
   Makefile) and linked with every test file that includes ecs.h without
   ECS_IMPLEMENTATION. tests/test.h comes first, so the implementation's
   ECS_ASSERT is the tests' recorder, and defining ECS_IMPLEMENTATION before
   it puts the recorder's definition here. */
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"
