// SPDX-License-Identifier: MIT
// File: modules/lwc.cppm                Module: lwc
//
// The umbrella: `import lwc;` brings every contract. Only `export import` lines belong here.
export module lwc;

export import lwc.decompose;
export import lwc.cover;
export import lwc.rebase;
export import lwc.broadphase;
export import lwc.commit;
