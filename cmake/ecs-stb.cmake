# Where stb_ds.h is, for CMakeLists.txt and for the installed ecsConfig.cmake.
# Sets the cache variable ECS_STB_DIR to the directory that holds stb_ds.h,
# unless it is set already (-DECS_STB_DIR=/path). Looks, in this order:
#   pkg-config's stb (Debian/Ubuntu: libstb-dev, /usr/include/stb);
#   find_path in CMake's prefixes, as is and under stb/ (vcpkg's installed
#   tree with its toolchain file, MSYS2's /ucrt64/include/stb);
#   ECS_STB_HINT (ecs.h's directory: a stb_ds.h vendored next to ecs.h).
# Leaves ECS_STB_DIR at ECS_STB_DIR-NOTFOUND if all of them fail.
# ECS_PC_STB_FOUND and ECS_PC_STB_INCLUDE_DIRS tell whether pkg-config knew it.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(ECS_PC_STB QUIET stb)
endif()
find_path(ECS_STB_DIR stb_ds.h
  HINTS ${ECS_PC_STB_INCLUDE_DIRS}
  PATHS ${ECS_STB_HINT}
  PATH_SUFFIXES stb
  DOC "Directory that holds stb_ds.h (ecs.h includes it)")
