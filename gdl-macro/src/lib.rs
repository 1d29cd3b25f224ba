//! The `gdl!` proc macro (a later issue): a thin layer over `gdl-codegen` that
//! compiles a game at build time. It holds no compiler logic of its own.
