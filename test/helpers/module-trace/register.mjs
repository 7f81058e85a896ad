// `node --import <this file>`: records the URL of every module the process loads (see hooks.mjs).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
