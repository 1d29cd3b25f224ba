//! Interned names.
//!
//! Prefix GDL is case-independent by its specification: by default names are
//! folded with ASCII case folding (`CELL`, `Cell` and `cell` are one symbol),
//! and the first spelling seen is the one printed. [`Symbols::case_sensitive`]
//! keeps spellings apart instead (infix GDL, where case marks variables, and
//! the `--case-sensitive` option).

use rustc_hash::FxHashMap;

/// An interned name: a constant, function, relation or variable name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// The table of interned names of one program.
#[derive(Clone, Debug)]
pub struct Symbols {
    names: Vec<String>,
    index: FxHashMap<String, Sym>,
    case_sensitive: bool,
}

impl Symbols {
    /// A case-independent table (the default for prefix GDL).
    pub fn new() -> Self {
        Self::with_case(false)
    }

    /// A table that keeps names of different case apart.
    pub fn case_sensitive() -> Self {
        Self::with_case(true)
    }

    fn with_case(case_sensitive: bool) -> Self {
        let mut table = Symbols {
            names: Vec::new(),
            index: FxHashMap::default(),
            case_sensitive,
        };
        // Keywords take the first ids, in `Keyword::ALL` order, so that
        // `keyword()` needs no lookup.
        for kw in Keyword::ALL {
            table.intern(kw.name());
        }
        table
    }

    /// Whether names of different case are different symbols.
    pub fn is_case_sensitive(&self) -> bool {
        self.case_sensitive
    }

    fn key<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.case_sensitive || !text.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Borrowed(text)
        } else {
            std::borrow::Cow::Owned(text.to_ascii_lowercase())
        }
    }

    /// The symbol for `text`, adding it when new.
    pub fn intern(&mut self, text: &str) -> Sym {
        let key = self.key(text);
        if let Some(&s) = self.index.get(key.as_ref()) {
            return s;
        }
        let sym = Sym(self.names.len() as u32);
        self.index.insert(key.into_owned(), sym);
        self.names.push(text.to_owned());
        sym
    }

    /// The symbol for `text`, if interned.
    pub fn lookup(&self, text: &str) -> Option<Sym> {
        self.index.get(self.key(text).as_ref()).copied()
    }

    /// The first spelling of `sym`.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    /// The symbol of a keyword.
    ///
    /// In a case-sensitive table only the lower-case spelling is the keyword.
    pub fn keyword(&self, kw: Keyword) -> Sym {
        Sym(kw as u32)
    }

    /// Which keyword `sym` is, if any.
    pub fn as_keyword(&self, sym: Sym) -> Option<Keyword> {
        Keyword::ALL.get(sym.0 as usize).copied()
    }

    /// Number of interned symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no symbol is interned (never true: keywords are always present).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

impl Default for Symbols {
    fn default() -> Self {
        Self::new()
    }
}

/// The GDL keywords, with their fixed arities.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Keyword {
    /// `role`
    Role,
    /// `init`
    Init,
    /// `true`
    True,
    /// `does`
    Does,
    /// `legal`
    Legal,
    /// `next`
    Next,
    /// `terminal`
    Terminal,
    /// `goal`
    Goal,
    /// `base`
    Base,
    /// `input`
    Input,
}

impl Keyword {
    /// Every relation keyword.
    pub const ALL: [Keyword; 10] = [
        Keyword::Role,
        Keyword::Init,
        Keyword::True,
        Keyword::Does,
        Keyword::Legal,
        Keyword::Next,
        Keyword::Terminal,
        Keyword::Goal,
        Keyword::Base,
        Keyword::Input,
    ];

    /// The keyword's name, in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Keyword::Role => "role",
            Keyword::Init => "init",
            Keyword::True => "true",
            Keyword::Does => "does",
            Keyword::Legal => "legal",
            Keyword::Next => "next",
            Keyword::Terminal => "terminal",
            Keyword::Goal => "goal",
            Keyword::Base => "base",
            Keyword::Input => "input",
        }
    }

    /// The arity GDL fixes for the keyword.
    pub fn arity(self) -> usize {
        match self {
            Keyword::Terminal => 0,
            Keyword::Role | Keyword::Init | Keyword::True | Keyword::Next | Keyword::Base => 1,
            Keyword::Does | Keyword::Legal | Keyword::Goal | Keyword::Input => 2,
        }
    }
}
