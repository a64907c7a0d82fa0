import type { TeamService } from '../team/team-service'
import type { HandlersFor } from './types'

export function teamHandlers(team: TeamService): HandlersFor<'team'> {
  return {
    'team:get': () => team.summary(),
    'team:configure': (args) => team.configure(args),
    'team:forget': () => team.forget(),
    'team:test': () => team.test(),
    'team:pushMarks': (args) => team.pushMarks(args),
    'team:changeMonth': (args) => team.changeMonth(args),
    'team:months': (args) => team.months(args),
    'team:pullAudit': (args) => team.pullAudit(args),
    'team:joinMarks': (args) => team.joinMarks(args),
    'team:grants': () => team.grants(),
    'team:waitWake': (args, ctx) => team.waitWake(args, ctx.signal),
  }
}
