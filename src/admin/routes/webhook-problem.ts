import type { FastifyReply } from 'fastify';
import type { EndpointProblem } from '../../webhooks/webhook-endpoints.js';
import { sendAdminError } from '../admin-errors.js';

/** A webhook operation's refusal, with its own message. */
export const webhookProblem = (reply: FastifyReply, result: EndpointProblem) =>
  sendAdminError(reply, result.problem, result.message);
