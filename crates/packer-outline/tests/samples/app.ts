/**
 * A small application object, exported under another name, with
 * overloaded call signatures written one per line.
 */
import { Router } from './router'

type Handler = (path: string) => Response

/** Handlers by method, each callable with or without a path. */
export interface Handlers {
  <P extends string>(path: P, handler: Handler): App
  // With a second path.
  <P extends string, Q extends string>(path: P, other: Q, handler: Handler): App
  (handler: Handler): App
}

/** Readers, one signature per arity. */
export type Readers = {
  <T>(key: string): T | undefined
  <T, D>(key: string, fallback: D): T | D
}

/** A box whose value only flows out. */
export interface Source<out T> {
  read(): T
}

/** The application: routes by path. */
class App {
  routes: string[] = []
  private router = new Router()

  constructor(private readonly name: string) {
    this.routes.push(name)
  }

  /** Adds a GET route. */
  get(path: string, handler: Handler): App {
    this.router.add('GET', path, handler)
    return this
  }

  #clear(): void {
    this.routes.length = 0
  }
}

function describe(app: App): string {
  return app.routes.join(',')
}

function unused(): void {
  return
}

const version = '1.0.0'

export { App as AppBase, describe }
export default version
export type * from './types'
